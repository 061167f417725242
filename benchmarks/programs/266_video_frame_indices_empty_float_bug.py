"""Bug: the video embedding job samples frame indices into a Python list and wraps it with torch.tensor; for a clip whose metadata reports zero frames the list is empty, torch.tensor([]) is float32, and indexing the frame tensor with it fails.

family: int-float
category: data-paths
expected: IndexError
message: tensors used as indices must be long, int, byte or bool tensors
source: https://github.com/embeddings-benchmark/mteb/pull/4570
"""
import torch
import torch.nn as nn


class VideoDecoder:
    """Stands in for the decoder: holds the decoded frames and the container's frame count."""

    def __init__(self, frames):
        self.frames = frames
        self.num_frames = frames.shape[0]

    def get_frames_at(self, indices):
        return self.frames[indices]  # bug: a float32 index tensor when no frame was selected


def select_frames(num_frames, max_frames):
    if num_frames <= max_frames:
        return list(range(num_frames))
    step = num_frames / max_frames
    return [int(i * step) for i in range(max_frames)]


class FrameEncoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, dim))

    def forward(self, frames):
        return self.net(frames)


def embed_videos(decoders, encoder, max_frames=8):
    embeddings = []
    for decoder in decoders:
        selected_frames = select_frames(decoder.num_frames, max_frames)
        frames = decoder.get_frames_at(torch.tensor(selected_frames))  # cause: torch.tensor([]) defaults to float32
        feats = encoder(frames) if len(selected_frames) else torch.zeros(0, 32)
        embeddings.append(feats.sum(0) / max(len(selected_frames), 1))
    return torch.stack(embeddings)


torch.manual_seed(0)
lengths = [30, 12, 5, 0, 20]  # one corrupted file reports no frames
decoders = [VideoDecoder(torch.rand(n, 3, 16, 16)) for n in lengths]
encoder = FrameEncoder().eval()
with torch.no_grad():
    emb = embed_videos(decoders, encoder)
print("embeddings:", tuple(emb.shape), "zero-frame rows:", int((emb.abs().sum(1) == 0).sum()))
