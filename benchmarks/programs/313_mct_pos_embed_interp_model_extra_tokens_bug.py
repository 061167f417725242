"""Bug: before loading the DeiT checkpoint into the multi-class-token ViT, the script interpolates the checkpoint's position embedding, but slices off the model's number of extra tokens (one per class, 4) from a checkpoint that has one class token; the remaining 33 tokens are not a square grid and the reshape to (5, 5) fails.

family: shape
category: mutated-modules
expected: RuntimeError
message: shape '[-1, 5, 5, 32]' is invalid for input of size 1056
source: https://github.com/xulianuwa/MCTformer/issues/29
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class PatchEmbed(nn.Module):
    def __init__(self, img_size=24, patch_size=4, embed_dim=32):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(3, embed_dim, patch_size, patch_size)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class MCTformer(nn.Module):
    def __init__(self, num_classes=4, embed_dim=32, img_size=24):
        super().__init__()
        self.num_classes = num_classes
        self.patch_embed = PatchEmbed(img_size, 4, embed_dim)
        self.cls_token = nn.Parameter(torch.zeros(1, num_classes, embed_dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, self.patch_embed.num_patches + num_classes, embed_dim))
        self.blocks = nn.TransformerEncoderLayer(embed_dim, 4, 64, batch_first=True)
        self.head = nn.Conv1d(num_classes, num_classes, embed_dim, groups=num_classes)

    def forward(self, x):
        x = self.patch_embed(x)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1) + self.pos_embed
        x = self.blocks(x)
        return self.head(x[:, :self.num_classes]).squeeze(-1)


def deit_checkpoint(embed_dim=32, grid=6):
    torch.manual_seed(1)
    return {"model": {"cls_token": torch.randn(1, 1, embed_dim), "pos_embed": torch.randn(1, 1 + grid * grid, embed_dim),
                      "patch_embed.proj.weight": torch.randn(embed_dim, 3, 4, 4) * 0.02}}


def load_pretrained(model, checkpoint):
    checkpoint_model = checkpoint["model"]
    pos_embed_checkpoint = checkpoint_model["pos_embed"]
    embedding_size = pos_embed_checkpoint.shape[-1]
    num_patches = model.patch_embed.num_patches
    num_extra_tokens = model.pos_embed.shape[-2] - num_patches  # cause: the model's 4 class tokens, not the checkpoint's 1
    orig_size = int((pos_embed_checkpoint.shape[-2] - num_extra_tokens) ** 0.5)
    new_size = int(num_patches ** 0.5)
    extra_tokens = pos_embed_checkpoint[:, :num_extra_tokens]
    pos_tokens = pos_embed_checkpoint[:, num_extra_tokens:]
    pos_tokens = pos_tokens.reshape(-1, orig_size, orig_size, embedding_size).permute(0, 3, 1, 2)  # bug: 33 tokens into a 5x5 grid
    pos_tokens = F.interpolate(pos_tokens, size=(new_size, new_size), mode="bicubic", align_corners=False)
    pos_tokens = pos_tokens.permute(0, 2, 3, 1).flatten(1, 2)
    checkpoint_model["pos_embed"] = torch.cat((extra_tokens.expand(-1, model.num_classes, -1), pos_tokens), dim=1)
    checkpoint_model["cls_token"] = checkpoint_model["cls_token"].expand(-1, model.num_classes, -1).clone()
    return model.load_state_dict(checkpoint_model, strict=False)


def main():
    torch.manual_seed(0)
    model = MCTformer(num_classes=4)
    load_pretrained(model, deit_checkpoint())
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    images, labels = torch.randn(4, 3, 24, 24), (torch.rand(4, 4) > 0.5).float()
    for _ in range(2):
        loss = F.multilabel_soft_margin_loss(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
