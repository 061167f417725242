"""Bug: the depth decoder derives its token grid as ceil(H / patch) (a padded patch embedding), but the patch embedding convolves the 134x134 image without padding and yields a floor-sized 33x33 grid, so viewing the 1089 value tokens as (B, 34, 34, C) fails.

family: shape
category: model-shapes
expected: RuntimeError
message: shape '[2, 34, 34, 16]' is invalid for input of size 34848
source: https://github.com/ashutosh1807/PixelFormer/issues/18
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class PatchEmbed(nn.Module):
    def __init__(self, patch_size=4, in_chans=3, embed_dim=16):
        super().__init__()
        self.patch_size = patch_size
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        x = self.proj(x)  # cause: no padding, the grid is floor(134 / 4) = 33
        return x.flatten(2).transpose(1, 2)


class SAM(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)

    def forward(self, tokens, H, W):
        B, N, C = tokens.shape
        q = self.q(tokens)
        k, v = self.kv(tokens).chunk(2, dim=-1)
        attn = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(C), dim=-1)
        v = attn @ v
        v = v.view(B, H, W, C)  # bug: 33x33 tokens, 34x34 grid
        return v.permute(0, 3, 1, 2)


class PixelFormer(nn.Module):
    def __init__(self, patch_size=4, dim=16, max_depth=10.0):
        super().__init__()
        self.patch_size = patch_size
        self.max_depth = max_depth
        self.backbone = PatchEmbed(patch_size, 3, dim)
        self.sam = SAM(dim)
        self.disp_head = nn.Conv2d(dim, 1, 3, padding=1)

    def forward(self, imgs):
        Hi, Wi = imgs.shape[-2:]
        Wh, Ww = math.ceil(Hi / self.patch_size), math.ceil(Wi / self.patch_size)
        feats = self.sam(self.backbone(imgs), Wh, Ww)
        depth = torch.sigmoid(self.disp_head(feats)) * self.max_depth
        return F.interpolate(depth, size=(Hi, Wi), mode="bilinear", align_corners=False)


torch.manual_seed(0)
images = torch.rand(4, 3, 134, 134)
depth_gt = torch.rand(4, 1, 134, 134) * 10
loader = DataLoader(TensorDataset(images, depth_gt), batch_size=2)
model = PixelFormer()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step, (image, gt) in enumerate(loader):
    pred = model(image)
    loss = F.l1_loss(pred, gt)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: l1 {loss.item():.3f}")
