"""Bug: the DCGAN script sets real_label = 1 and fake_label = 0 as Python ints and builds the discriminator targets with torch.full((b_size,), real_label), which infers int64; BCELoss on the sigmoid output refuses the Long target.

family: int-float
category: factories
expected: RuntimeError
message: Found dtype Long but expected Float
source: https://github.com/AKASHKADEL/dcgan-mnist/pull/2
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

nz, ngf, ndf = 16, 8, 8
real_label = 1  # cause: int labels, so torch.full makes int64 targets
fake_label = 0


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.ConvTranspose2d(nz, ngf * 2, 7, 1, 0, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
                                  nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
                                  nn.ConvTranspose2d(ngf, 1, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Conv2d(1, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
                                  nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2),
                                  nn.LeakyReLU(0.2, inplace=True), nn.Conv2d(ndf * 2, 1, 7, 1, 0, bias=False), nn.Sigmoid())

    def forward(self, x):
        return self.main(x).view(-1)


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    dataloader = DataLoader(TensorDataset(torch.rand(16, 1, 28, 28, generator=g) * 2 - 1), batch_size=8, shuffle=True)
    netG, netD = Generator(), Discriminator()
    criterion = nn.BCELoss()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    for epoch in range(1):
        for (real_cpu,) in dataloader:
            netD.zero_grad()
            b_size = real_cpu.size(0)
            label = torch.full((b_size,), real_label)
            output = netD(real_cpu)
            lossD_real = criterion(output, label)  # bug: Long target for BCELoss
            lossD_real.backward()
            noise = torch.randn(b_size, nz, 1, 1)
            fake = netG(noise)
            label.fill_(fake_label)
            lossD_fake = criterion(netD(fake.detach()), label)
            lossD_fake.backward()
            optimizerD.step()
            netG.zero_grad()
            label.fill_(real_label)
            lossG = criterion(netD(fake), label)
            lossG.backward()
            optimizerG.step()
        print(f"epoch {epoch} lossD {(lossD_real + lossD_fake).item():.4f} lossG {lossG.item():.4f}")
