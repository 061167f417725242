"""Bug: the config selects the "dali" loader, whose image decoder hands back raw uint8 HWC pixels; only the "pil" loader path converts to float and scales, so the pose network's first conv gets a Byte batch.

family: int-float
category: configuration
expected: RuntimeError
message: should be the same
source: https://github.com/NVIDIA/DALI/issues/2460
"""
import numpy as np
import torch
import torch.nn as nn

cfg = {
    "DATASET": {"DECODER": "dali", "INPUT_SIZE": 32, "NUM_JOINTS": 5},
    "TRAIN": {"BATCH_SIZE": 2, "LR": 1e-3, "ITERS": 2},
}


def fake_jpegs(n, size):
    rng = np.random.default_rng(0)
    return [rng.integers(0, 256, size=(size, size, 3), dtype=np.uint8) for _ in range(n)]


def pil_loader(files, batch_size):
    for i in range(0, len(files), batch_size):
        batch = np.stack(files[i:i + batch_size]).astype(np.float32) / 255.0
        yield torch.from_numpy(batch).permute(0, 3, 1, 2).contiguous()


def dali_loader(files, batch_size):
    for i in range(0, len(files), batch_size):
        decoded = np.stack(files[i:i + batch_size])  # ops.ImageDecoder output: uint8, HWC
        yield torch.from_numpy(decoded).permute(0, 3, 1, 2).contiguous()  # cause: still uint8 0..255


LOADERS = {"pil": pil_loader, "dali": dali_loader}


class PoseHigherResolutionNet(nn.Module):
    def __init__(self, num_joints):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.final_layer = nn.Conv2d(16, num_joints, 1)

    def forward(self, x):
        return self.final_layer(self.stem(x))  # bug: uint8 images into the float32 conv


def do_train(cfg, model, loader, optimizer):
    for images in loader:
        outputs = model(images)
        target = torch.zeros_like(outputs)
        loss = nn.functional.mse_loss(outputs, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"loss {loss.item():.4f}")


def main(cfg):
    torch.manual_seed(0)
    files = fake_jpegs(cfg["TRAIN"]["BATCH_SIZE"] * cfg["TRAIN"]["ITERS"], cfg["DATASET"]["INPUT_SIZE"])
    loader = LOADERS[cfg["DATASET"]["DECODER"]](files, cfg["TRAIN"]["BATCH_SIZE"])
    model = PoseHigherResolutionNet(cfg["DATASET"]["NUM_JOINTS"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["TRAIN"]["LR"])
    do_train(cfg, model, loader, optimizer)


if __name__ == "__main__":
    main(cfg)
