"""Bug: the depth-warping step permutes the projected pixel coordinates to (B, H, W, 2), takes the u channel and flattens it with view(-1), which needs the u values to be contiguous in memory.

family: shape
category: model-shapes
expected: RuntimeError
message: view size is not compatible with input tensor's size and stride
source: https://github.com/lppllppl920/EndoscopyDepthEstimation-Pytorch/issues/13
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, H, W = 2, 12, 16


def pixel_grid(height, width):
    v, u = torch.meshgrid(torch.arange(height, dtype=torch.float32), torch.arange(width, dtype=torch.float32),
                          indexing="ij")
    ones = torch.ones(height, width)
    return torch.stack([u, v, ones]).view(3, height * width)


def depth_warping(depth, rotation, translation, intrinsics, eps=1e-6):
    rays = torch.matmul(torch.inverse(intrinsics), pixel_grid(H, W))  # (B, 3, H*W)
    points = rays * depth.view(B, 1, H * W)
    moved = torch.matmul(rotation, points) + translation
    projected = torch.matmul(intrinsics, moved)
    uv = projected[:, :2] / projected[:, 2:3].clamp(min=eps)
    uv = uv.view(B, 2, H, W).permute(0, 2, 3, 1)  # cause: (B, H, W, 2) laid out as (B, 2, H, W)
    u_2 = uv[..., 0]
    u_2_flat = u_2.view(-1)  # bug: the u values of one batch item are not one run of memory
    v_2_flat = uv[..., 1].reshape(-1)
    return u_2_flat, v_2_flat


depth = torch.rand(B, 1, H, W) + 0.5
rotation = torch.eye(3).expand(B, 3, 3)
translation = torch.zeros(B, 3, 1)
intrinsics = torch.tensor([[20.0, 0.0, W / 2], [0.0, 20.0, H / 2], [0.0, 0.0, 1.0]]).expand(B, 3, 3)
u, v = depth_warping(depth, rotation, translation, intrinsics)
print(u.shape, v.shape)
