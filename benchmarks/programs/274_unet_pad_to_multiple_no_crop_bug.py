"""Bug: the U-Net pads every image up to a multiple of 16 so its pooling and upsampling line up, but returns the logits at the padded size; 47x63 lesion images come back as 48x64 masks and BCEWithLogitsLoss refuses the 47x63 targets.

family: shape
category: model-shapes
expected: ValueError
message: must be the same as input size
source: https://github.com/sunjesse/shape-attentive-unet/issues/4
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(), nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU())


class UNet(nn.Module):
    def __init__(self, in_ch=3, base=8, multiple=16):
        super().__init__()
        self.multiple = multiple
        self.enc1, self.enc2, self.enc3 = double_conv(in_ch, base), double_conv(base, base * 2), double_conv(base * 2, base * 4)
        self.up2 = nn.ConvTranspose2d(base * 4, base * 2, 2, stride=2)
        self.dec2 = double_conv(base * 4, base * 2)
        self.up1 = nn.ConvTranspose2d(base * 2, base, 2, stride=2)
        self.dec1 = double_conv(base * 2, base)
        self.out = nn.Conv2d(base, 1, 1)

    def forward(self, x):
        h, w = x.shape[-2:]
        x = F.pad(x, (0, -w % self.multiple, 0, -h % self.multiple), mode="reflect")  # cause: padded up, never cropped back
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        e3 = self.enc3(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(e3), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.out(d1)


class LesionDataset(Dataset):
    def __init__(self, n, height=47, width=63):
        g = torch.Generator().manual_seed(0)
        self.images = torch.rand(n, 3, height, width, generator=g)
        self.masks = (torch.rand(n, 1, height, width, generator=g) > 0.7).float()

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.masks[i]


torch.manual_seed(0)
loader = DataLoader(LesionDataset(6), batch_size=2, shuffle=True)
model = UNet()
crit = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(2):
    for image, mask in loader:
        pred = model(image)
        loss = crit(pred, mask)  # bug: 48x64 logits, 47x63 targets
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
