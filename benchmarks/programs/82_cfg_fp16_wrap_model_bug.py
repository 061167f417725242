"""Bug: an mmdet-style config dict carries fp16 = dict(loss_scale=512.0); the runner wraps the model into half precision whenever cfg has fp16, while the data pipeline yields float32 images.

family: precision
category: configuration
expected: RuntimeError
message: Input type (float) and bias type (c10::Half) should be the same
source: https://github.com/open-mmlab/mmdetection/issues/8081
"""
import torch
import torch.nn as nn

cfg = dict(
    model=dict(type="TinyDetector", in_channels=3, num_classes=4),
    data=dict(samples_per_gpu=2, img_scale=(48, 48)),
    optimizer=dict(lr=0.01),
    fp16=dict(loss_scale=512.0),
)


class TinyDetector(nn.Module):
    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(in_channels, 8, 3, stride=2), nn.ReLU())
        self.cls = nn.Conv2d(8, num_classes, 1)

    def forward(self, img):
        return self.cls(self.backbone(img))  # bug: float32 images into the float16 detector


def wrap_fp16_model(model):
    model.half()  # cause: every parameter becomes float16
    return model


def build_detector(model_cfg):
    kwargs = {k: v for k, v in model_cfg.items() if k != "type"}
    return TinyDetector(**kwargs)


def train_detector(model, cfg):
    fp16_cfg = cfg.get("fp16", None)
    if fp16_cfg is not None:
        model = wrap_fp16_model(model)
    h, w = cfg["data"]["img_scale"]
    img = torch.randn(cfg["data"]["samples_per_gpu"], 3, h, w)
    out = model(img)
    print(out.shape)


if __name__ == "__main__":
    train_detector(build_detector(cfg["model"]), cfg)
