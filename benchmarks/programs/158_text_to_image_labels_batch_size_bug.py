"""Bug: the conditional GAN's training step builds its real labels with the trainer's batch_size inside the batch loop; 70 caption/image pairs in batches of 64 end with a batch of 6, and BCE gets 6 outputs for 64 targets.

family: shape
category: data-paths
expected: ValueError
message: Using a target size (torch.Size([64])) that is different to the input size (torch.Size([6]))
source: https://github.com/aelnouby/Text-to-Image-Synthesis/issues/37
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Discriminator(nn.Module):
    def __init__(self, embed_dim=12, image_dim=48):
        super().__init__()
        self.image = nn.Sequential(nn.Linear(image_dim, 32), nn.LeakyReLU(0.2))
        self.joint = nn.Linear(32 + embed_dim, 1)

    def forward(self, images, embeds):
        h = self.image(images.flatten(1))
        return torch.sigmoid(self.joint(torch.cat([h, embeds], dim=1))).squeeze(1)


class Trainer:
    def __init__(self, batch_size, lr=2e-4):
        self.batch_size = batch_size
        self.discriminator = Discriminator()
        self.criterion = nn.BCELoss()
        self.optim_D = torch.optim.Adam(self.discriminator.parameters(), lr=lr, betas=(0.5, 0.999))

    def train_epoch(self, data_loader):
        for right_images, right_embed in data_loader:
            real_labels = torch.ones(self.batch_size)  # cause: the configured batch size, not the batch's
            self.discriminator.zero_grad()
            outputs = self.discriminator(right_images, right_embed)
            real_loss = self.criterion(outputs, real_labels)  # bug: 6 outputs, 64 labels
            real_loss.backward()
            self.optim_D.step()
        return real_loss.item()


def main():
    torch.manual_seed(0)
    dataset = TensorDataset(torch.rand(70, 3, 4, 4), torch.randn(70, 12))
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    trainer = Trainer(batch_size=64)
    for epoch in range(2):
        print(f"epoch {epoch}: D loss {trainer.train_epoch(loader):.3f}")


if __name__ == "__main__":
    main()
