"""Bug: the training config resizes the images to 120x120, which four 2x max-pools cannot halve evenly (120 -> 60 -> 30 -> 15 -> 7); the upsampled bottleneck (14) no longer matches the skip connection e4 (15) in the decoder's torch.cat.

family: shape
category: model-shapes
expected: RuntimeError
message: Sizes of tensors must match except in dimension 1
source: https://github.com/bigmb/Unet-Segmentation-Pytorch-Nest-of-Unets/issues/55
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

train_config = {"img_size": 120, "batch_size": 2, "epochs": 1, "lr": 1e-3}  # cause: 120 is not a multiple of 2**4


class conv_block(nn.Sequential):
    def __init__(self, in_ch, out_ch):
        super().__init__(nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True))


class up_conv(nn.Sequential):
    def __init__(self, in_ch, out_ch):
        super().__init__(nn.Upsample(scale_factor=2), nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.ReLU(inplace=True))


class U_Net(nn.Module):
    def __init__(self, in_ch=3, out_ch=1, n1=8):
        super().__init__()
        filters = [n1, n1 * 2, n1 * 4, n1 * 8, n1 * 16]
        self.Maxpool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.Conv = nn.ModuleList([conv_block(a, b) for a, b in zip([in_ch] + filters[:-1], filters)])
        self.Up5, self.Up_conv5 = up_conv(filters[4], filters[3]), conv_block(filters[4], filters[3])
        self.Up4, self.Up_conv4 = up_conv(filters[3], filters[2]), conv_block(filters[3], filters[2])
        self.Up3, self.Up_conv3 = up_conv(filters[2], filters[1]), conv_block(filters[2], filters[1])
        self.Up2, self.Up_conv2 = up_conv(filters[1], filters[0]), conv_block(filters[1], filters[0])
        self.Conv_out = nn.Conv2d(filters[0], out_ch, 1)

    def forward(self, x):
        e1 = self.Conv[0](x)
        e2 = self.Conv[1](self.Maxpool(e1))
        e3 = self.Conv[2](self.Maxpool(e2))
        e4 = self.Conv[3](self.Maxpool(e3))
        e5 = self.Conv[4](self.Maxpool(e4))
        d5 = self.Up5(e5)
        d5 = torch.cat((e4, d5), dim=1)  # bug: e4 is 15x15, the upsampled bottleneck 14x14
        d4 = self.Up_conv4(torch.cat((e3, self.Up4(self.Up_conv5(d5))), dim=1))
        d3 = self.Up_conv3(torch.cat((e2, self.Up3(d4)), dim=1))
        d2 = self.Up_conv2(torch.cat((e1, self.Up2(d3)), dim=1))
        return self.Conv_out(d2)


class Images_Dataset(Dataset):
    def __init__(self, n=4, raw_size=150, img_size=128):
        g = torch.Generator().manual_seed(0)
        self.images = torch.rand(n, 3, raw_size, raw_size, generator=g)
        self.labels = (torch.rand(n, 1, raw_size, raw_size, generator=g) > 0.5).float()
        self.img_size = img_size

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        size = (self.img_size, self.img_size)
        image = F.interpolate(self.images[i:i + 1], size=size, mode="bilinear", align_corners=False)[0]
        label = F.interpolate(self.labels[i:i + 1], size=size, mode="nearest")[0]
        return image, label


if __name__ == "__main__":
    torch.manual_seed(0)
    model_test = U_Net(3, 1)
    train_loader = DataLoader(Images_Dataset(img_size=train_config["img_size"]), batch_size=train_config["batch_size"], shuffle=True)
    opt = torch.optim.Adam(model_test.parameters(), lr=train_config["lr"])
    for epoch in range(train_config["epochs"]):
        model_test.train()
        for x, y in train_loader:
            opt.zero_grad()
            y_pred = model_test(x)
            lossT = F.binary_cross_entropy_with_logits(y_pred, y)
            lossT.backward()
            opt.step()
            print(f"epoch {epoch} train loss {lossT.item():.4f}")
