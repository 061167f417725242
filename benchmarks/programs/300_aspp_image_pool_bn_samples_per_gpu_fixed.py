"""Fixed twin of 300_aspp_image_pool_bn_samples_per_gpu_bug.py: two images per GPU, so the pooled branch's BatchNorm sees two values per channel.

family: shape
category: configuration
expected: success
source: https://github.com/open-mmlab/mmsegmentation/issues/272
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

norm_cfg = dict(type="BN", requires_grad=True)
model_cfg = dict(in_channels=16, channels=8, dilations=(1, 2, 3), num_classes=4)
data_cfg = dict(samples_per_gpu=2, workers_per_gpu=0, crop_size=(24, 24), num_images=4)
optimizer_cfg = dict(lr=0.01, momentum=0.9, weight_decay=5e-4)


def conv_module(in_ch, out_ch, k=1, dilation=1):
    pad = 0 if k == 1 else dilation
    return nn.Sequential(nn.Conv2d(in_ch, out_ch, k, padding=pad, dilation=dilation, bias=False),
                         nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True))


class Backbone(nn.Module):
    def __init__(self, out_channels):
        super().__init__()
        self.stem = nn.Sequential(conv_module(3, 8, 3), nn.MaxPool2d(2), conv_module(8, out_channels, 3))

    def forward(self, x):
        return self.stem(x)


class ASPPHead(nn.Module):
    def __init__(self, in_channels, channels, dilations, num_classes):
        super().__init__()
        self.image_pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), conv_module(in_channels, channels))
        self.aspp = nn.ModuleList([conv_module(in_channels, channels, 1 if d == 1 else 3, d) for d in dilations])
        self.bottleneck = conv_module((len(dilations) + 1) * channels, channels, 3)
        self.conv_seg = nn.Conv2d(channels, num_classes, 1)

    def forward(self, x):
        pooled = self.image_pool(x)
        outs = [F.interpolate(pooled, size=x.shape[2:], mode="bilinear", align_corners=False)]
        outs.extend(branch(x) for branch in self.aspp)
        return self.conv_seg(self.bottleneck(torch.cat(outs, dim=1)))


class EncoderDecoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = Backbone(cfg["in_channels"])
        self.decode_head = ASPPHead(**cfg)

    def forward(self, img):
        seg_logits = self.decode_head(self.backbone(img))
        return F.interpolate(seg_logits, size=img.shape[2:], mode="bilinear", align_corners=False)


def build_dataloader(cfg):
    g = torch.Generator().manual_seed(0)
    h, w = cfg["crop_size"]
    imgs = torch.randn(cfg["num_images"], 3, h, w, generator=g)
    segs = torch.randint(0, model_cfg["num_classes"], (cfg["num_images"], h, w), generator=g)
    return DataLoader(TensorDataset(imgs, segs), batch_size=cfg["samples_per_gpu"], shuffle=True,
                      num_workers=cfg["workers_per_gpu"], generator=g)


def train_segmentor():
    torch.manual_seed(0)
    model = EncoderDecoder(model_cfg).train()
    optimizer = torch.optim.SGD(model.parameters(), **optimizer_cfg)
    for img, gt in build_dataloader(data_cfg):
        loss = F.cross_entropy(model(img), gt, ignore_index=255)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"decode.loss_seg {loss.item():.4f}")


if __name__ == "__main__":
    train_segmentor()
