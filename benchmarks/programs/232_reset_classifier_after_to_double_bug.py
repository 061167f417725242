"""Bug: the fine-tuning script moves the backbone to float64 and then calls reset_classifier(); the head's reset builds a fresh nn.Linear with the float32 default, so the float64 pooled features reach a float32 classifier.

family: precision
category: mutated-modules
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/huggingface/pytorch-image-models/pull/2743
"""
import torch
import torch.nn as nn


class ClassifierHead(nn.Module):
    def __init__(self, in_features, num_classes, drop_rate=0.0):
        super().__init__()
        self.in_features = in_features
        self.global_pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(drop_rate)
        self.fc = nn.Linear(in_features, num_classes)
        self.flatten = nn.Flatten(1)

    def reset(self, num_classes):
        self.fc = nn.Linear(self.in_features, num_classes)  # cause: a new layer with float32 parameters

    def forward(self, x):
        x = self.flatten(self.global_pool(x))
        return self.fc(self.drop(x))  # bug: float64 features, float32 classifier


class TinyConvNet(nn.Module):
    def __init__(self, num_classes=1000, width=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, stride=2, padding=1), nn.BatchNorm2d(width), nn.ReLU())
        self.stages = nn.Sequential(nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.ReLU())
        self.head = ClassifierHead(2 * width, num_classes)

    def reset_classifier(self, num_classes):
        self.head.reset(num_classes)

    def forward(self, x):
        return self.head(self.stages(self.stem(x)))


def create_model(name, num_classes=1000):
    assert name == "tiny_convnet"
    return TinyConvNet(num_classes=num_classes)


def main():
    torch.manual_seed(0)
    model = create_model("tiny_convnet")
    model = model.to(dtype=torch.float64)  # a float64 run for the finite-difference gradient check
    model.reset_classifier(num_classes=5)
    images = torch.randn(4, 3, 16, 16, dtype=torch.float64)
    targets = torch.randint(0, 5, (4,))
    logits = model(images)
    loss = nn.functional.cross_entropy(logits, targets)
    loss.backward()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
