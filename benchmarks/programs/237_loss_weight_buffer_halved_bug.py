"""Bug: the prediction head owns its CrossEntropyLoss (with class weights) as a submodule, so the fp16 switch model.half() also turns the loss's weight buffer to half; the head upcasts its logits to float32 for the loss, and the float32 loss refuses half class weights.

family: precision
category: mutated-modules
expected: RuntimeError
message: expected scalar type Float but found Half
source: https://github.com/NVIDIA/apex/issues/837
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class PredictionHead(nn.Module):
    def __init__(self, in_dim, class_weights):
        super().__init__()
        self.fc = nn.Linear(in_dim, len(class_weights))
        class_weights = torch.tensor(class_weights, requires_grad=False)
        self.loss_module_class = nn.CrossEntropyLoss(weight=class_weights, reduction="none")

    def forward(self, x):
        return self.fc(x)

    def loss(self, predictions, labels):
        return self.loss_module_class(predictions.float(), labels)  # bug: float32 logits, half class weights


class Detector(nn.Module):
    def __init__(self, in_dim, class_weights):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU())
        self.head = PredictionHead(32, class_weights)

    def forward(self, x):
        return self.head(self.backbone(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fp16", action="store_true")
    args = parser.parse_args(["--fp16"])
    torch.manual_seed(0)
    features, labels = torch.randn(24, 12), torch.randint(0, 3, (24,))
    loader = DataLoader(TensorDataset(features, labels), batch_size=8)
    model = Detector(12, class_weights=[0.2, 1.0, 3.0])
    if args.fp16:
        model = model.half()  # cause: .half() also converts the loss module's weight buffer
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for x, y in loader:
        x = x.half() if args.fp16 else x
        loss = model.head.loss(model(x), y).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
