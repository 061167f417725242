"""Fixed twin of 369_foolbox_samples_int32_labels_attack_bug.py: the wrapper converts the labels with torch.from_numpy(labels).long(), so the cross entropy gets int64 targets.

family: class-target
category: factories
expected: success
source: https://github.com/bethgelab/foolbox/issues/647
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def samples(dataset="imagenet", index=0, batchsize=4, shape=(16, 16), data_format="channels_first", seed=0):
    rng = np.random.default_rng(seed + index)
    images = rng.random((batchsize, 3) + shape, dtype=np.float32)
    if data_format == "channels_last":
        images = images.transpose(0, 2, 3, 1)
    labels = np.array(rng.integers(0, 10, batchsize), dtype=np.int32)
    return images, labels


class PyTorchModel:
    def __init__(self, model, bounds, preprocessing=None):
        self.model = model.eval()
        self.bounds = bounds
        self.mean, self.std = preprocessing or (0.0, 1.0)

    def __call__(self, x):
        return self.model((x - self.mean) / self.std)


class FGSM:
    def __init__(self, fmodel):
        self.fmodel = fmodel

    def gradient(self, x, labels):
        x = x.clone().requires_grad_(True)
        logits = self.fmodel(x)
        loss = F.cross_entropy(logits, labels)
        grad, = torch.autograd.grad(loss, x)
        return grad

    def __call__(self, images, labels, epsilon=0.03):
        lo, hi = self.fmodel.bounds
        grad = self.gradient(images, labels)
        return (images + epsilon * grad.sign()).clamp(lo, hi)


def resnet18_like(num_classes=10):
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, num_classes))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = resnet18_like()
    preprocessing = (0.45, 0.22)
    fmodel = PyTorchModel(model, bounds=(0, 1), preprocessing=preprocessing)
    images, labels = samples(dataset="imagenet", batchsize=4, data_format="channels_first")
    images, labels = torch.from_numpy(images), torch.from_numpy(labels).long()
    attack = FGSM(fmodel)
    adversarials = attack(images, labels)
    with torch.no_grad():
        clean_acc = (fmodel(images).argmax(-1) == labels).float().mean().item()
        adv_acc = (fmodel(adversarials).argmax(-1) == labels).float().mean().item()
    print(f"clean {clean_acc:.2f} adversarial {adv_acc:.2f}")
