"""Bug: the preprocessing is picked from a registry by the config's name; the default "raw" entry only flattens the uint8 images, the ImageToFloat-like step is in the other entry.

family: int-float
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/autrainer/autrainer/pull/107
"""
import numpy as np
import torch
import torch.nn as nn


def flatten(img):
    return img.reshape(img.shape[0], -1)


def image_to_float(img):
    return img.float() / 255.0


def pipeline(*steps):
    def run(x):
        for step in steps:
            x = step(x)
        return x
    return run


PREPROCESS = {
    "raw": pipeline(flatten),  # cause: no step converts the uint8 pixels
    "scaled": pipeline(image_to_float, flatten),
}
CFG = {"preprocess": "raw", "image": 8, "classes": 4, "batch": 6}


def digits(n, size):
    return torch.from_numpy(np.random.randint(0, 256, size=(n, size, size), dtype=np.uint8))


def main(cfg):
    prep = PREPROCESS[cfg["preprocess"]]
    model = nn.Sequential(nn.Linear(cfg["image"] ** 2, 32), nn.ReLU(), nn.Linear(32, cfg["classes"]))
    x = prep(digits(cfg["batch"], cfg["image"]))
    y = torch.randint(0, cfg["classes"], (cfg["batch"],))
    logits = model(x)  # bug: uint8 pixels into float32 Linear
    loss = nn.functional.cross_entropy(logits, y)
    loss.backward()
    print(loss.item())


if __name__ == "__main__":
    main(CFG)
