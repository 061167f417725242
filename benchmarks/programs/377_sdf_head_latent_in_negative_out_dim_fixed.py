"""Fixed twin of 377_sdf_head_latent_in_negative_out_dim_bug.py: the head drops the stale latent_in compensation, since forward never re-concatenates the latent, so every layer keeps its configured width.

family: shape
category: configuration
expected: success
source: https://github.com/ru1ven/C2F-SDF/issues/2
"""
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn


def make_cfg():
    cfg = SimpleNamespace()
    cfg.sdf_head = SimpleNamespace()
    cfg.sdf_head.layers = 5
    cfg.sdf_head.feat_dim = 32
    cfg.sdf_head.dims = [32 for _ in range(cfg.sdf_head.layers - 1)]
    cfg.sdf_head.latent_in = [(cfg.sdf_head.layers - 1) // 2]
    cfg.sdf_head.num_class = 1
    return cfg


class SDFHead(nn.Module):
    def __init__(self, sdf_latent, point_latent, dims, num_class, latent_in):
        super().__init__()
        self.dims = [sdf_latent + point_latent] + dims + [num_class]
        self.num_layers = len(self.dims)
        self.latent_in = latent_in
        for layer in range(0, self.num_layers - 1):
            out_dim = self.dims[layer + 1]
            setattr(self, "lin" + str(layer), nn.Linear(self.dims[layer], out_dim))
        self.relu = nn.ReLU()

    def forward(self, x):
        for layer in range(0, self.num_layers - 1):
            x = getattr(self, "lin" + str(layer))(x)
            if layer < self.num_layers - 2:
                x = self.relu(x)
        return x


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, cfg.sdf_head.feat_dim))
        self.sdf_head = SDFHead(cfg.sdf_head.feat_dim, 3, cfg.sdf_head.dims, cfg.sdf_head.num_class, cfg.sdf_head.latent_in)

    def forward(self, img, points):
        feat = self.backbone(img)
        feat = feat.unsqueeze(1).expand(-1, points.shape[1], -1)
        return self.sdf_head(torch.cat([feat, points], dim=-1))


def get_model(cfg, is_train):
    model = Model(cfg)
    model.train(is_train)
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = make_cfg()
    model = get_model(cfg, True)
    rng = np.random.default_rng(0)
    img = torch.from_numpy(rng.random((4, 3, 32, 32), dtype=np.float32))
    points = torch.from_numpy(rng.uniform(-1, 1, size=(4, 64, 3)).astype(np.float32))
    gt_sdf = points.norm(dim=-1, keepdim=True) - 0.5
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(3):
        pred = model(img, points)
        loss = nn.functional.l1_loss(pred, gt_sdf)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}")
