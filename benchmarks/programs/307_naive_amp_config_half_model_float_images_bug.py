"""Bug: the config turns on naive fp16 (fp16=dict(mode="naive")), so initialize() converts the whole model to float16; the training loop still feeds the loader's float32 images, and the first half-precision conv refuses them.

family: precision
category: mixed-precision
expected: RuntimeError
message: Input type (float) and bias type (c10::Half) should be the same
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
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)  # bug: float32 images into the float16 conv
        x = F.relu(self.conv2(x)).mean(dim=(2, 3))
        return self.fc(x)


class Engine:
    def __init__(self, model, optimizer, loss_scale):
        self.model, self.optimizer, self.loss_scale = model, optimizer, loss_scale

    def __call__(self, *args):
        return self.model(*args)

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
        model = model.half()  # cause: naive amp makes every parameter float16
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
