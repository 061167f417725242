"""Bug: the transform pipeline is built from a list of callables; the step that scales uint8 pixels to float is missing from the eval list, so uint8 images reach Conv2d.

family: int-float
category: factories
expected: RuntimeError
message: Input type (unsigned char) and bias type (float) should be the same
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
eval_tf = Compose([hwc_to_chw, center_crop])  # cause: no to_float step, the pixels stay uint8

model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))


def predict(images):
    batch = torch.stack([eval_tf(img) for img in images])
    with torch.no_grad():
        return model(batch).argmax(1)  # bug: uint8 batch into the float32 convolution


if __name__ == "__main__":
    frames = [np.random.randint(0, 256, size=(32, 32, 3), dtype=np.uint8) for _ in range(3)]
    print(predict(frames).tolist())
