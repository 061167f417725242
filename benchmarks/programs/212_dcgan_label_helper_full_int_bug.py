"""Bug: the DCGAN's label helper fills its tensor with torch.full(..., real_label) where real_label = 1 is a Python int, which newer torch turns into an int64 tensor; BCELoss wants float targets.

family: class-target
category: factories
expected: RuntimeError
message: Found dtype Long but expected Float
source: https://github.com/pytorch/pytorch/issues/45373
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

nz, ngf, ndf, nc = 8, 8, 8, 1
real_label = 1
fake_label = 0


def make_labels(b_size, value, device):
    return torch.full((b_size,), value, device=device)  # cause: an int fill value gives an int64 tensor


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.ConvTranspose2d(nz, ngf, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
                                  nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
                                  nn.Conv2d(ndf, 1, 4, 1, 0, bias=False), nn.Sigmoid())

    def forward(self, x):
        return self.main(x)


def main():
    torch.manual_seed(999)
    device = torch.device("cpu")
    dataloader = DataLoader(TensorDataset(torch.rand(8, nc, 8, 8) * 2 - 1), batch_size=4, shuffle=True)
    netG, netD = Generator().to(device), Discriminator().to(device)
    criterion = nn.BCELoss()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    for i, (real_cpu,) in enumerate(dataloader):
        netD.zero_grad()
        b_size = real_cpu.size(0)
        label = make_labels(b_size, real_label, device)
        output = netD(real_cpu).view(-1)
        errD_real = criterion(output, label)  # bug: int64 labels into BCELoss
        errD_real.backward()
        noise = torch.randn(b_size, nz, 1, 1, device=device)
        fake = netG(noise)
        label.fill_(fake_label)
        errD_fake = criterion(netD(fake.detach()).view(-1), label)
        errD_fake.backward()
        optimizerD.step()
        netG.zero_grad()
        label.fill_(real_label)
        errG = criterion(netD(fake).view(-1), label)
        errG.backward()
        optimizerG.step()
        print(f"[{i}] Loss_D: {(errD_real + errD_fake).item():.4f} Loss_G: {errG.item():.4f}")


if __name__ == "__main__":
    main()
