"""Bug: the training-data preprocessing script turns each run of captured game frames into a batch with a helper that stacks and permutes the uint8 screenshots but never converts them to float; the ResNet feature extractor's conv refuses the Byte batch.

family: int-float
category: factories
expected: RuntimeError
message: Input type (unsigned char)
source: https://github.com/FengQuanLi/ResnetGPT/issues/19
"""
import numpy as np
import torch
import torch.nn as nn


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.down = nn.Conv2d(cin, cout, 1, stride=stride, bias=False)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)) + self.down(x))


class ResNetFeatures(nn.Module):
    def __init__(self, feature_dim=32):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 7, stride=2, padding=3)
        self.layers = nn.Sequential(BasicBlock(16, 32, 2), BasicBlock(32, feature_dim, 2))
        self.fc = nn.Linear(feature_dim, 10)

    def forward(self, x):
        x = self.layers(torch.relu(self.stem(x)))  # bug: uint8 screenshots into the float32 conv
        feat = x.mean(dim=(2, 3))
        return self.fc(feat), feat


def capture_frames(n, height=48, width=64):
    rng = np.random.default_rng(0)
    return [rng.integers(0, 256, size=(height, width, 3), dtype=np.uint8) for _ in range(n)]


def frames_to_batch(frames, device):
    img = torch.from_numpy(np.stack(frames)).to(device)  # cause: uint8 pixels, no float conversion
    return img.permute(0, 3, 1, 2)


def process_recording(frames, actions, resnet, device, chunk=4):
    features, targets = [], []
    for i in range(0, len(frames), chunk):
        img2 = frames_to_batch(frames[i:i + chunk], device)
        with torch.no_grad():
            _, out = resnet(img2)
        features.append(out.cpu())
        targets.append(torch.tensor(actions[i:i + chunk]))
    return torch.cat(features), torch.cat(targets)


def main():
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    resnet101 = ResNetFeatures().to(device).eval()
    frames = capture_frames(8)
    actions = [i % 5 for i in range(len(frames))]
    features, targets = process_recording(frames, actions, resnet101, device)
    print(features.shape, targets.shape)


if __name__ == "__main__":
    main()
