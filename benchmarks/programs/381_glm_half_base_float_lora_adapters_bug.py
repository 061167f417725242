"""Bug: the inference script loads the base GLM in float16 and then wraps its query_key_value layers with LoRA adapters restored from the fine-tune checkpoint, which are created in float32; the half hidden states reach the float32 lora_A weight.

family: precision
category: mixed-precision
expected: RuntimeError
message: expected m1 and m2 to have the same dtype, but got: c10::Half != float
source: https://github.com/mymusise/ChatGLM-Tuning/issues/190
"""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class LoraConfig:
    r: int = 4
    lora_alpha: int = 16
    target_modules: tuple = ("query_key_value",)


class GLMBlock(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(hidden)
        self.query_key_value = nn.Linear(hidden, 3 * hidden)
        self.dense = nn.Linear(hidden, hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(), nn.Linear(4 * hidden, hidden))

    def forward(self, h):
        q, k, v = self.query_key_value(self.input_layernorm(h)).chunk(3, dim=-1)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]), dim=-1)
        h = h + self.dense(att @ v)
        return h + self.mlp(h)


class TinyGLM(nn.Module):
    def __init__(self, vocab=64, hidden=32, layers=2):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList([GLMBlock(hidden) for _ in range(layers)])
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, input_ids):
        h = self.word_embeddings(input_ids)
        for layer in self.layers:
            h = layer(h)
        return self.lm_head(h)


class LoraLinear(nn.Module):
    def __init__(self, base, r, alpha):
        super().__init__()
        self.base = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / r

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x)) * self.scaling  # bug: half x into float32 lora_A


def get_peft_model(model, config, adapter_state):
    for block in model.layers:
        for name in config.target_modules:
            lora = LoraLinear(getattr(block, name), config.r, config.lora_alpha)  # cause: adapters built in float32 around a half model
            setattr(block, name, lora)
    model.load_state_dict(adapter_state, strict=False)
    return model


def load_base_model():
    torch.manual_seed(0)
    model = TinyGLM()
    return model.half()


def fake_adapter_checkpoint(config):
    state = {}
    for i in range(2):
        state[f"layers.{i}.query_key_value.lora_A.weight"] = torch.randn(config.r, 32) * 0.01
        state[f"layers.{i}.query_key_value.lora_B.weight"] = torch.randn(96, config.r) * 0.01
    return state


@torch.no_grad()
def generate(model, input_ids, max_new_tokens=5):
    for _ in range(max_new_tokens):
        logits = model(input_ids)
        next_id = logits[:, -1].float().argmax(-1, keepdim=True)
        input_ids = torch.cat([input_ids, next_id], dim=1)
    return input_ids


if __name__ == "__main__":
    config = LoraConfig()
    model = load_base_model()
    model = get_peft_model(model, config, fake_adapter_checkpoint(config)).eval()
    prompt = torch.tensor([[3, 17, 42, 8, 9]])
    out = generate(model, prompt)
    print(out.tolist())
