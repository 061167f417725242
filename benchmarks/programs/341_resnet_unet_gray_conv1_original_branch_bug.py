"""Bug: to train the ResNet-UNet on grayscale images the encoder's conv1 is swapped for a 1-channel convolution after the model is built, but the full-resolution branch conv_original_size0 still expects 3 input channels and is applied to the same grayscale input.

family: shape
category: mutated-modules
expected: RuntimeError
message: expected input[2, 1, 32, 32] to have 3 channels, but got 1 channels instead
source: https://github.com/usuyama/pytorch-unet/issues/15
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def convrelu(in_ch, out_ch, kernel, padding):
    return nn.Sequential(nn.Conv2d(in_ch, out_ch, kernel, padding=padding), nn.ReLU(inplace=True))


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU())


class ResNetUNet(nn.Module):
    def __init__(self, n_class):
        super().__init__()
        self.base_model = TinyResNet()
        self.layer1_1x1 = convrelu(32, 32, 1, 0)
        self.conv_up0 = convrelu(16 + 32, 16, 3, 1)
        self.conv_original_size0 = convrelu(3, 16, 3, 1)
        self.conv_original_size2 = convrelu(16 + 16, 16, 3, 1)
        self.conv_last = nn.Conv2d(16, n_class, 1)

    def forward(self, x):
        b = self.base_model
        x_original = self.conv_original_size0(x)  # bug: 1-channel image into a 3-channel conv
        layer0 = b.relu(b.bn1(b.conv1(x)))
        layer1 = self.layer1_1x1(b.layer1(layer0))
        x = F.interpolate(layer1, scale_factor=2, mode="bilinear", align_corners=True)
        x = self.conv_up0(torch.cat([x, layer0], dim=1))
        x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
        x = self.conv_original_size2(torch.cat([x, x_original], dim=1))
        return self.conv_last(x)


def make_gray_model(n_class):
    model = ResNetUNet(n_class)
    model.base_model.conv1 = nn.Conv2d(1, 16, 7, stride=2, padding=3, bias=False)  # cause: only the encoder conv1 is swapped; conv_original_size0 stays 3-channel
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    model = make_gray_model(n_class=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    images = torch.rand(2, 1, 32, 32)
    masks = (torch.rand(2, 2, 32, 32) > 0.5).float()
    for step in range(2):
        pred = model(images)
        loss = F.binary_cross_entropy_with_logits(pred, masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")
