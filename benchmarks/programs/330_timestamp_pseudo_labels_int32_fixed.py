"""Fixed twin of 330_timestamp_pseudo_labels_int32_bug.py: the timestamp labels are parsed as int64, matching the pseudo-label tensor they are written into.

family: class-target
category: factories
expected: success
source: https://github.com/ZheLi2020/TimestampActionSeg/issues/6
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def load_timestamps(rng, length, num_classes, n_marks=4):
    frames = np.sort(rng.choice(length, n_marks, replace=False))
    classes = np.sort(rng.integers(0, num_classes, n_marks)).astype(np.int64)
    return frames, classes


class BatchGenerator:
    def __init__(self, num_classes=5, n_videos=4, feat_dim=8, seed=0):
        rng = np.random.default_rng(seed)
        self.num_classes = num_classes
        self.lengths = [int(x) for x in rng.integers(20, 30, n_videos)]
        self.features = [rng.standard_normal((feat_dim, n)).astype(np.float32) for n in self.lengths]
        self.timestamps = [load_timestamps(rng, n, num_classes) for n in self.lengths]

    def next_batch(self, batch_size):
        max_len = max(self.lengths[:batch_size])
        batch_input = torch.zeros(batch_size, self.features[0].shape[0], max_len)
        batch_target = torch.full((batch_size, max_len), -100, dtype=torch.long)
        mask = torch.zeros(batch_size, self.num_classes, max_len)
        for b in range(batch_size):
            n = self.lengths[b]
            batch_input[b, :, :n] = torch.from_numpy(self.features[b])
            frames, classes = self.timestamps[b]
            batch_target[b, torch.from_numpy(frames)] = torch.from_numpy(classes)
            mask[b, :, :n] = 1
        return batch_input, batch_target, mask


class SingleStageTCN(nn.Module):
    def __init__(self, dim, num_f_maps, num_classes):
        super().__init__()
        self.conv_in = nn.Conv1d(dim, num_f_maps, 1)
        self.layers = nn.ModuleList([nn.Conv1d(num_f_maps, num_f_maps, 3, padding=2 ** i, dilation=2 ** i) for i in range(3)])
        self.conv_out = nn.Conv1d(num_f_maps, num_classes, 1)

    def forward(self, x, mask):
        out = self.conv_in(x)
        for layer in self.layers:
            out = out + F.relu(layer(out))
        return self.conv_out(out) * mask[:, 0:1, :]


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = BatchGenerator()
    model = SingleStageTCN(8, 16, gen.num_classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    batch_input, batch_target, mask = gen.next_batch(4)
    predictions = model(batch_input, mask)
    loss = F.cross_entropy(predictions, batch_target, ignore_index=-100)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"timestamp loss {loss.item():.4f}")
