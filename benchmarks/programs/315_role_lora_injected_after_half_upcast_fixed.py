"""Fixed twin of 315_role_lora_injected_after_half_upcast_bug.py: the wrapper runs the base Linear on the original half hidden states and casts the adapters' float32 update back to their dtype.

family: precision
category: mutated-modules
expected: success
source: https://github.com/weiyifan1023/Neeko/issues/6
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q_proj, self.v_proj, self.o_proj = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)

    def forward(self, x):
        att = torch.softmax(self.q_proj(x) @ x.transpose(1, 2) / x.shape[-1] ** 0.5, dim=-1)
        return x + self.o_proj(att @ self.v_proj(x))


class TinyLM(nn.Module):
    def __init__(self, vocab=50, dim=16, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([Block(dim) for _ in range(n_layers)])
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def forward(self, input_ids):
        h = self.embed(input_ids)
        for layer in self.layers:
            h = layer(h)
        return self.lm_head(h)


class MoLoRALinear(nn.Module):
    def __init__(self, base, n_roles=3, r=4, alpha=8):
        super().__init__()
        self.base, self.scaling = base, alpha / r
        self.lora_A = nn.ModuleList([nn.Linear(base.in_features, r, bias=False) for _ in range(n_roles)])
        self.lora_B = nn.ModuleList([nn.Linear(r, base.out_features, bias=False) for _ in range(n_roles)])
        self.role = 0

    def forward(self, x):
        h = x.float()
        out = self.base(x)
        return out + (self.lora_B[self.role](self.lora_A[self.role](h)) * self.scaling).to(out.dtype)


def inject_role_lora(model, targets=("q_proj", "v_proj")):
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.layers:
        for name in targets:
            setattr(layer, name, MoLoRALinear(getattr(layer, name)))
    return model


def main():
    torch.manual_seed(0)
    model = inject_role_lora(TinyLM().half())
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    g = torch.Generator().manual_seed(0)
    for step in range(2):
        input_ids = torch.randint(0, 50, (2, 8), generator=g)
        logits = model(input_ids).float()
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, 50), input_ids[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
