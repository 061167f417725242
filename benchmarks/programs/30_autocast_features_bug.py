"""Bug: backbone features are computed under CPU bfloat16 autocast in a helper and leave the region; the float32 head gets bfloat16.

family: precision
expected: RuntimeError
message: mat1 and mat2 must have the same dtype, but got BFloat16 and Float
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self, in_ch=3, width=16):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, width, 3, padding=1)
        self.conv2 = nn.Conv2d(width, width, 3, stride=2, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        return self.pool(x).flatten(1)


def extract_features(backbone, images, use_amp=True):
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=use_amp):
        feats = backbone(images)  # cause: autocast makes the features bfloat16
    return feats


def linear_probe(backbone, head, batches, lr=0.1):
    opt = torch.optim.SGD(head.parameters(), lr=lr)
    for step, (images, labels) in enumerate(batches):
        feats = extract_features(backbone, images)
        logits = head(feats)  # bug: bfloat16 features meet the float32 head outside autocast
        loss = nn.functional.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: {loss.item():.3f}")


backbone = Backbone().eval()
head = nn.Linear(16, 5)
batches = [(torch.randn(4, 3, 16, 16), torch.randint(0, 5, (4,))) for _ in range(3)]
linear_probe(backbone, head, batches)
