"""Bug: NUM_CLASSES in the config was changed from 40 (NYUDv2) to 2 for a two-class dataset, but training still resumes from the 40-class checkpoint at CKPT_PATH; load_ckpt loads every saved state dict strictly and the classifier conv's 40 output channels do not fit the new 2-class segmenter.

family: shape
category: configuration
expected: RuntimeError
message: size mismatch for clf_conv.weight: copying a param with shape torch.Size([40, 16, 3, 3])
source: https://github.com/DrSleep/light-weight-refinenet/issues/37
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_SEGM_EPOCHS = [1] * 3
NUM_CLASSES = [2] * 3  # cause: changed from [40] * 3 while resuming the 40-class checkpoint
BATCH_SIZE = [2] * 3
LR_ENC, LR_DEC = [5e-4] * 3, [5e-3] * 3
CKPT_PATH = "ckpt/checkpoint.pth.tar"


class RefineNetLW(nn.Module):
    def __init__(self, num_classes, ch=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, ch, 3, 2, 1), nn.ReLU(), nn.Conv2d(ch, ch, 3, 2, 1), nn.ReLU())
        self.crp = nn.Sequential(nn.MaxPool2d(5, 1, 2), nn.Conv2d(ch, ch, 1, bias=False))
        self.clf_conv = nn.Conv2d(ch, num_classes, 3, padding=1, bias=True)

    def forward(self, x):
        x = self.encoder(x)
        return self.clf_conv(x + self.crp(x))


def saved_checkpoints():
    torch.manual_seed(1)
    return {CKPT_PATH: {"segmenter": RefineNetLW(num_classes=40).state_dict(), "best_val": 0.41, "epoch_start": 2}}


def load_ckpt(ckpt_path, ckpt_dict, store):
    best_val = epoch_start = 0
    if ckpt_path in store:
        ckpt = store[ckpt_path]
        for (k, v) in ckpt_dict.items():
            if k in ckpt:
                v.load_state_dict(ckpt[k])  # bug: a 40-class clf_conv into the 2-class segmenter
        best_val = ckpt.get("best_val", 0)
        epoch_start = ckpt.get("epoch_start", 0)
    return best_val, epoch_start


def train_segmenter(segmenter, stage, n_iter=2):
    optim_enc = torch.optim.SGD(segmenter.encoder.parameters(), lr=LR_ENC[stage], momentum=0.9)
    optim_dec = torch.optim.SGD(list(segmenter.crp.parameters()) + list(segmenter.clf_conv.parameters()),
                                lr=LR_DEC[stage], momentum=0.9)
    g = torch.Generator().manual_seed(stage)
    for _ in range(n_iter):
        image = torch.randn(BATCH_SIZE[stage], 3, 32, 32, generator=g)
        target = torch.randint(0, NUM_CLASSES[stage], (BATCH_SIZE[stage], 32, 32), generator=g)
        output = F.interpolate(segmenter(image), size=target.shape[1:], mode="bilinear", align_corners=False)
        loss = F.cross_entropy(output, target, ignore_index=255)
        optim_enc.zero_grad()
        optim_dec.zero_grad()
        loss.backward()
        optim_enc.step()
        optim_dec.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    segmenter = RefineNetLW(num_classes=NUM_CLASSES[0])
    best_val, epoch_start = load_ckpt(CKPT_PATH, {"segmenter": segmenter}, saved_checkpoints())
    for task_idx in range(len(NUM_SEGM_EPOCHS)):
        for epoch in range(NUM_SEGM_EPOCHS[task_idx]):
            loss = train_segmenter(segmenter, task_idx)
            print(f"stage {task_idx} epoch {epoch_start + epoch} loss {loss:.4f} best {best_val:.2f}")


if __name__ == "__main__":
    main()
