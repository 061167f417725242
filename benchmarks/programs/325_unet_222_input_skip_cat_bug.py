"""Bug: the UNet halves the input four times with max pooling and doubles it back with transposed convolutions; a 222x222 input shrinks to 111, 55, 27 and 13, so the 13 -> 26 upsampled map cannot be concatenated with the 27x27 skip connection.

family: shape
category: model-shapes
expected: RuntimeError
message: Sizes of tensors must match except in dimension 1
source: https://github.com/ptrblck/pytorch_misc/issues/2
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


def double_conv(in_ch, out_ch):
    return nn.Sequential(nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True),
                         nn.Conv2d(out_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True))


class Down(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.block = nn.Sequential(nn.MaxPool2d(2), double_conv(in_ch, out_ch))

    def forward(self, x):
        return self.block(x)


class Up(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.up = nn.ConvTranspose2d(in_ch, in_ch // 2, 2, stride=2)
        self.conv = double_conv(in_ch, out_ch)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        return self.conv(torch.cat([x2, x1], dim=1))  # bug: 26x26 upsampled map next to a 27x27 skip


class UNet(nn.Module):
    def __init__(self, n_channels=3, n_classes=2, base=4):
        super().__init__()
        self.inc = double_conv(n_channels, base)
        self.down1, self.down2 = Down(base, base * 2), Down(base * 2, base * 4)
        self.down3, self.down4 = Down(base * 4, base * 8), Down(base * 8, base * 16)
        self.up4, self.up3 = Up(base * 16, base * 8), Up(base * 8, base * 4)
        self.up2, self.up1 = Up(base * 4, base * 2), Up(base * 2, base)
        self.out = nn.Conv2d(base, n_classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x5 = self.down4(x4)
        x_up = self.up4(x5, x4)
        x_up = self.up3(x_up, x3)
        x_up = self.up2(x_up, x2)
        x_up = self.up1(x_up, x1)
        return F.log_softmax(self.out(x_up), 1)


class TileDataset(Dataset):
    def __init__(self, n=2, crop=222):  # cause: 222 is not a multiple of 2**4
        g = torch.Generator().manual_seed(0)
        self.images = torch.randn(n, 3, crop, crop, generator=g)
        self.masks = torch.randint(0, 2, (n, crop, crop), generator=g)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.masks[i]


if __name__ == "__main__":
    torch.manual_seed(0)
    unet = UNet()
    optimizer = torch.optim.Adam(unet.parameters(), lr=1e-3)
    for inputs, masks in DataLoader(TileDataset(), batch_size=2):
        outputs = unet(inputs)
        loss = F.nll_loss(outputs, masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(outputs.shape, outputs.dtype, f"loss {loss.item():.4f}")
