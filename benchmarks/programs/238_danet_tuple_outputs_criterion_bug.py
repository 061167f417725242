"""Bug: DANet's forward returns a tuple of three segmentation maps (fused, position-attention, channel-attention), but the criterion is built without --aux, so its plain CrossEntropyLoss path receives the whole tuple as its input.

family: shape
category: model-outputs
expected: TypeError
message: must be Tensor, not tuple
source: https://github.com/CASIA-IVA-Lab/DANet/issues/137
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class DANetHead(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv_pam = nn.Sequential(nn.Conv2d(in_channels, 8, 3, padding=1), nn.ReLU())
        self.conv_cam = nn.Sequential(nn.Conv2d(in_channels, 8, 3, padding=1), nn.ReLU())
        self.conv6 = nn.Conv2d(8, out_channels, 1)
        self.conv7 = nn.Conv2d(8, out_channels, 1)
        self.conv8 = nn.Conv2d(8, out_channels, 1)

    def forward(self, x):
        sa_feat, sc_feat = self.conv_pam(x), self.conv_cam(x)
        output = [self.conv8(sa_feat + sc_feat), self.conv6(sa_feat), self.conv7(sc_feat)]
        return tuple(output)  # cause: three maps, the fused one first


class DANet(nn.Module):
    def __init__(self, nclass):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
        self.head = DANetHead(16, nclass)

    def forward(self, x):
        return self.head(self.backbone(x))


class SegmentationLosses(nn.CrossEntropyLoss):
    def __init__(self, aux=False, aux_weight=0.4, ignore_index=-1):
        super().__init__(ignore_index=ignore_index)
        self.aux, self.aux_weight = aux, aux_weight

    def forward(self, *inputs):
        if not self.aux:
            return super().forward(*inputs)  # bug: the tuple of maps reaches cross_entropy
        (pred1, pred2, pred3), target = inputs
        aux = super().forward(pred2, target) + super().forward(pred3, target)
        return super().forward(pred1, target) + self.aux_weight * aux


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nclass", type=int, default=4)
    parser.add_argument("--aux", action="store_true", default=False)
    args = parser.parse_args([])
    torch.manual_seed(0)
    images, masks = torch.randn(8, 3, 16, 16), torch.randint(0, args.nclass, (8, 16, 16))
    trainloader = DataLoader(TensorDataset(images, masks), batch_size=4)
    model = DANet(args.nclass)
    criterion = SegmentationLosses(aux=args.aux)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for image, target in trainloader:
        outputs = model(image)
        loss = criterion(outputs, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
