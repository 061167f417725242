"""Fixed twin of 73_compose_missing_to_float_bug.py: the eval pipeline scales to float too.

family: int-float
expected: success
source: https://github.com/Deci-AI/super-gradients/issues/1969
"""
import numpy as np
import torch
import torch.nn as nn


class Compose:
    def __init__(self, steps):
        self.steps = steps

    def __call__(self, x):
        for step in self.steps:
            x = step(x)
        return x


def hwc_to_chw(img):
    return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))


def to_float(img):
    return img.float() / 255.0


def center_crop(img, size=24):
    h, w = img.shape[-2:]
    top, left = (h - size) // 2, (w - size) // 2
    return img[..., top:top + size, left:left + size]


train_tf = Compose([hwc_to_chw, to_float, center_crop])
eval_tf = Compose([hwc_to_chw, to_float, center_crop])

model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))


def predict(images):
    batch = torch.stack([eval_tf(img) for img in images])
    with torch.no_grad():
        return model(batch).argmax(1)


if __name__ == "__main__":
    frames = [np.random.randint(0, 256, size=(32, 32, 3), dtype=np.uint8) for _ in range(3)]
    print(predict(frames).tolist())
