"""Fixed twin of 03_window_frames_bug.py: the window is float32.

family: numpy-float64
expected: success
"""
import numpy as np
import torch
import torch.nn as nn

np.random.seed(1)
torch.manual_seed(1)

FRAME, HOP, N_CLASSES = 16, 8, 3
WINDOW = np.hanning(FRAME).astype(np.float32)


def synth_clip(label, n_samples=96):
    t = np.linspace(0, 1, n_samples, dtype=np.float32)
    tone = np.sin(2 * np.pi * (label + 1) * 5 * t)
    return (tone + 0.1 * np.random.randn(n_samples)).astype(np.float32)


def frame_signal(signal, frame=FRAME, hop=HOP):
    frames = []
    for start in range(0, len(signal) - frame + 1, hop):
        frames.append(signal[start:start + frame] * WINDOW)
    return np.stack(frames)


class ClipClassifier(nn.Module):
    def __init__(self, n_in=FRAME, hidden=24, n_classes=N_CLASSES):
        super().__init__()
        self.rnn = nn.GRU(n_in, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, frames):
        seq, _ = self.rnn(frames)
        return self.out(seq[:, -1])


def make_batch(batch_size=4):
    labels = np.random.randint(0, N_CLASSES, size=batch_size)
    clips = [frame_signal(synth_clip(lab)) for lab in labels]
    return torch.tensor(np.stack(clips)), torch.from_numpy(labels)


model = ClipClassifier()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(3):
    x, y = make_batch()
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
