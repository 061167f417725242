"""Bug: the config's custom PIXEL_MEAN / PIXEL_STD are computed from the training images with numpy (float64 arrays); the model registers them with torch.tensor, so normalizing the float32 images promotes them to float64 and the backbone conv refuses the double input.

family: numpy-float64
category: configuration
expected: RuntimeError
message: should be the same
source: https://github.com/facebookresearch/detectron2/issues/5026
"""
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn


def get_cfg():
    return SimpleNamespace(MODEL=SimpleNamespace(PIXEL_MEAN=[103.53, 116.28, 123.675], PIXEL_STD=[1.0, 1.0, 1.0],
                                                 NUM_CLASSES=3),
                           SOLVER=SimpleNamespace(IMS_PER_BATCH=2, BASE_LR=1e-3, MAX_ITER=2))


def dataset_statistics(images):
    pixels = np.stack(images).astype(np.float64)
    return pixels.mean(axis=(0, 1, 2)), pixels.std(axis=(0, 1, 2))


class GeneralizedRCNN(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.register_buffer("pixel_mean", torch.tensor(cfg.MODEL.PIXEL_MEAN).view(-1, 1, 1), False)  # cause: float64 from the numpy mean
        self.register_buffer("pixel_std", torch.tensor(cfg.MODEL.PIXEL_STD).view(-1, 1, 1), False)
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())
        self.cls_head = nn.Linear(16, cfg.MODEL.NUM_CLASSES)

    def preprocess_image(self, batched_inputs):
        images = [(x["image"].float() - self.pixel_mean) / self.pixel_std for x in batched_inputs]
        return torch.stack(images)

    def forward(self, batched_inputs):
        images = self.preprocess_image(batched_inputs)
        features = self.backbone(images)  # bug: float64 images into the float32 backbone
        logits = self.cls_head(features.mean(dim=(2, 3)))
        targets = torch.tensor([x["label"] for x in batched_inputs])
        return {"loss_cls": nn.functional.cross_entropy(logits, targets)}


def main():
    rng = np.random.default_rng(0)
    train_images = [rng.integers(0, 256, size=(24, 24, 3), dtype=np.uint8) for _ in range(6)]
    cfg = get_cfg()
    cfg.MODEL.PIXEL_MEAN, cfg.MODEL.PIXEL_STD = dataset_statistics(train_images)
    torch.manual_seed(0)
    model = GeneralizedRCNN(cfg)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.SOLVER.BASE_LR)
    for it in range(cfg.SOLVER.MAX_ITER):
        batch = [{"image": torch.from_numpy(img.transpose(2, 0, 1).copy()), "label": int(i % 3)}
                 for i, img in enumerate(train_images[: cfg.SOLVER.IMS_PER_BATCH])]
        losses = model(batch)
        optimizer.zero_grad()
        sum(losses.values()).backward()
        optimizer.step()
        print(it, {k: round(v.item(), 4) for k, v in losses.items()})


if __name__ == "__main__":
    main()
