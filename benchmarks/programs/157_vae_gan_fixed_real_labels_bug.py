"""Bug: the GAN trainer builds its real/fake label tensors once for the configured batch size; 15 defect-free images in batches of 10 leave a last batch of 5, and the MSE adversarial loss cannot match 5 scores with 10 labels.

family: shape
category: data-paths
expected: RuntimeError
message: must match the size of tensor b (10)
source: https://github.com/DEVILENMO/Unsupervised-Defect-Detection-Project-Based-on-VAE-GAN-Architecture/issues/3
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Generator(nn.Module):
    def __init__(self, size=16):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(size * size, 64), nn.ReLU(), nn.Linear(64, size * size))
        self.size = size

    def forward(self, x):
        return torch.sigmoid(self.net(x)).view(-1, 1, self.size, self.size)


class Discriminator(nn.Module):
    def __init__(self, size=16):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(size * size, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return torch.sigmoid(self.net(x)).squeeze(1)


class GANTrainer:
    def __init__(self, batch_size):
        self.generator = Generator()
        self.discriminator = Discriminator()
        self.criterion_GAN = nn.MSELoss()
        self.opt_G = torch.optim.Adam(self.generator.parameters(), lr=2e-4)
        self.real_labels = torch.ones(batch_size)  # cause: labels for a full batch only
        self.fake_labels = torch.zeros(batch_size)

    def train(self, loader, epochs):
        for epoch in range(epochs):
            for (x,) in loader:
                y = self.generator(x)
                loss_G_adv = self.criterion_GAN(self.discriminator(y), self.real_labels)  # bug: 5 scores, 10 labels
                loss_G = loss_G_adv + (y - x).abs().mean()
                self.opt_G.zero_grad()
                loss_G.backward()
                self.opt_G.step()
            print(f"epoch {epoch}: {loss_G.item():.3f}")


def main():
    torch.manual_seed(0)
    images = torch.rand(15, 1, 16, 16)
    batch_size = 10
    loader = DataLoader(TensorDataset(images), batch_size=batch_size, shuffle=True)
    GANTrainer(batch_size).train(loader, 2)


if __name__ == "__main__":
    main()
