"""Bug: main.py accepts --image_channel 1 for grayscale datasets and the loaders produce one-channel images, but select_model never passes the option to the ResNet, whose stem is still built for 3 input channels; the dummy input for the FLOPs profile already fails in the stem convolution.

family: shape
category: configuration
expected: RuntimeError
message: expected input[1, 1, 32, 32] to have 3 channels, but got 1 channels instead
source: https://github.com/z1069614715/pytorch-classifier/issues/1
"""
import argparse

import torch
import torch.nn as nn


class BasicBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch), nn.ReLU(),
                                  nn.Conv2d(ch, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch))

    def forward(self, x):
        return torch.relu(x + self.body(x))


class ResNet(nn.Module):
    def __init__(self, num_classes=1000, in_chans=3, width=16):
        super().__init__()
        self.conv1 = nn.Conv2d(in_chans, width, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.layer1 = BasicBlock(width)
        self.fc = nn.Linear(width, num_classes)

    def forward_features(self, x):
        x = self.conv1(x)  # bug: one-channel images into a three-channel stem
        return self.layer1(torch.relu(self.bn1(x)))

    def forward(self, x):
        return self.fc(self.forward_features(x).mean((2, 3)))


def select_model(name, num_classes, input_shape, channels):
    model = {"resnet18": ResNet}[name](num_classes=num_classes)  # cause: channels is not passed to the model
    dummy_input = torch.rand(1, channels, *input_shape)
    with torch.no_grad():
        model.eval()
        model(dummy_input)
    return model


def parse_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", type=str, default="resnet18")
    parser.add_argument("--image_size", type=int, default=32)
    parser.add_argument("--image_channel", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=4)
    return parser.parse_args(["--image_channel", "1"])


if __name__ == "__main__":
    torch.manual_seed(0)
    opt = parse_opt()
    CLASS_NUM = 4
    model = select_model(opt.model_name, CLASS_NUM, (opt.image_size, opt.image_size), opt.image_channel)
    images = torch.rand(opt.batch_size, opt.image_channel, opt.image_size, opt.image_size)
    labels = torch.randint(0, CLASS_NUM, (opt.batch_size,))
    model.train()
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    print(f"loss {loss.item():.4f}")
