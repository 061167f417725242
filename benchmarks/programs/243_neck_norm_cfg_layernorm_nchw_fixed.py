"""Fixed twin of 243_neck_norm_cfg_layernorm_nchw_bug.py: type='LN' maps to a channel LayerNorm for (N, C, H, W) maps (LayerNorm over the channel axis, as ViTDet's LayerNorm2d does).

family: shape
expected: success
source: https://github.com/ViTAE-Transformer/ViTDet/issues/25
"""
import torch
import torch.nn as nn

NORM_LAYERS = {"BN": nn.BatchNorm2d, "LN": lambda channels: nn.GroupNorm(1, channels)}  # LN over (C, H, W)


def build_norm_layer(cfg, num_features):
    return NORM_LAYERS[cfg["type"]](num_features)


class ConvModule(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, padding=0, norm_cfg=None):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, bias=norm_cfg is None)
        self.norm = build_norm_layer(norm_cfg, out_channels) if norm_cfg else nn.Identity()
        self.act = nn.ReLU()

    def forward(self, x):
        x = self.conv(x)
        x = self.norm(x)
        return self.act(x)


class SimpleFeaturePyramid(nn.Module):
    def __init__(self, in_channels, out_channels, scale_factors=(2.0, 1.0, 0.5), norm_cfg=None):
        super().__init__()
        self.stages = nn.ModuleList()
        for scale in scale_factors:
            if scale == 2.0:
                resample = nn.ConvTranspose2d(in_channels, in_channels, 2, stride=2)
            elif scale == 0.5:
                resample = nn.MaxPool2d(2)
            else:
                resample = nn.Identity()
            self.stages.append(nn.Sequential(
                resample,
                ConvModule(in_channels, out_channels, 1, norm_cfg=norm_cfg),
                ConvModule(out_channels, out_channels, 3, padding=1, norm_cfg=norm_cfg)))

    def forward(self, x):
        return [stage(x) for stage in self.stages]


def main():
    cfg = dict(neck=dict(in_channels=8, out_channels=16, norm_cfg=dict(type="LN")))
    torch.manual_seed(0)
    neck = SimpleFeaturePyramid(**cfg["neck"])
    vit_features = torch.randn(2, 8, 12, 12)
    for level, feat in enumerate(neck(vit_features)):
        print(level, tuple(feat.shape))


if __name__ == "__main__":
    main()
