"""Fixed twin of 307_naive_amp_config_half_model_float_images_bug.py: the engine casts its inputs to the model's dtype, as naive amp's model wrapper does.

family: precision
category: mixed-precision
expected: success
source: https://github.com/hpcaitech/ColossalAI/issues/2392
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = dict(BATCH_SIZE=4, NUM_EPOCHS=1, fp16=dict(mode="naive", initial_scale=2 ** 8), clip_grad_norm=1.0)


class SimpleCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x)).mean(dim=(2, 3))
        return self.fc(x)


class Engine:
    def __init__(self, model, optimizer, loss_scale):
        self.model, self.optimizer, self.loss_scale = model, optimizer, loss_scale

    def __call__(self, *args):
        dtype = next(self.model.parameters()).dtype
        return self.model(*[a.to(dtype) if torch.is_floating_point(a) else a for a in args])

    def backward(self, loss):
        (loss * self.loss_scale).backward()
        for p in self.model.parameters():
            if p.grad is not None:
                p.grad.div_(self.loss_scale)

    def step(self):
        self.optimizer.step()
        self.optimizer.zero_grad()


def initialize(model, config):
    fp16 = config.get("fp16")
    if fp16 is not None and fp16["mode"] == "naive":
        model = model.half()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    return Engine(model, optimizer, fp16["initial_scale"] if fp16 else 1.0)


def build_cifar10_loader(batch_size):
    g = torch.Generator().manual_seed(0)
    images = torch.rand(16, 3, 16, 16, generator=g)
    labels = torch.randint(0, 10, (16,), generator=g)
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True, generator=g)


def main():
    torch.manual_seed(0)
    engine = initialize(SimpleCNN(), CONFIG)
    train_dataloader = build_cifar10_loader(CONFIG["BATCH_SIZE"])
    for epoch in range(CONFIG["NUM_EPOCHS"]):
        for img, label in train_dataloader:
            output = engine(img)
            train_loss = F.cross_entropy(output.float(), label)
            engine.backward(train_loss)
            engine.step()
        print(f"epoch {epoch} loss {train_loss.item():.4f}")


if __name__ == "__main__":
    main()
