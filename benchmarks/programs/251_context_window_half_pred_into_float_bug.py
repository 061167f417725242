"""Bug: the video sampler runs its motion UNet in fp16 (from the precision option) over overlapping context windows and writes each window's half prediction into a float32 noise-prediction buffer by frame index; index_put refuses Half into Float.

family: precision
category: mixed-precision
expected: RuntimeError
message: Index put requires the source and destination dtypes match
source: https://github.com/continue-revolution/sd-webui-animatediff/issues/168
"""
import torch
import torch.nn as nn


class MotionUNet(nn.Module):
    def __init__(self, channels=4, frames=4):
        super().__init__()
        self.spatial = nn.Conv2d(channels, channels, 3, padding=1)
        self.temporal = nn.Conv1d(channels, channels, 3, padding=1)

    def forward(self, x, t):
        b, c, f, h, w = x.shape
        x = self.spatial(x.transpose(1, 2).reshape(b * f, c, h, w)).reshape(b, f, c, h, w).transpose(1, 2)
        seq = x.permute(0, 3, 4, 1, 2).reshape(b * h * w, c, f)
        seq = self.temporal(seq).reshape(b, h, w, c, f).permute(0, 3, 4, 1, 2)
        return seq * (1.0 - t / 1000.0)


def uniform_context(num_frames, context_size=4, overlap=2):
    step = context_size - overlap
    return [list(range(s, s + context_size)) for s in range(0, num_frames - context_size + 1, step)]


class AnimateDiffSampler:
    def __init__(self, unet, precision="fp16"):
        self.dtype = torch.float16 if precision == "fp16" else torch.float32
        self.unet = unet.to(self.dtype).eval()

    @torch.no_grad()
    def denoise_step(self, latents, t):
        noise_pred = torch.zeros_like(latents)
        counter = torch.zeros(latents.shape[2])
        for context in uniform_context(latents.shape[2]):
            pred = self.unet(latents[:, :, context].to(self.dtype), t)  # cause: a half prediction
            noise_pred[:, :, context] = pred  # bug: Half window written into the Float buffer
            counter[context] += 1
        return latents - 0.1 * noise_pred / counter.view(1, 1, -1, 1, 1)


def main():
    torch.manual_seed(0)
    sampler = AnimateDiffSampler(MotionUNet(), precision="fp16")
    latents = torch.randn(1, 4, 8, 8, 8)
    for t in (999, 500, 1):
        latents = sampler.denoise_step(latents, t)
    print(latents.shape, latents.dtype)


if __name__ == "__main__":
    main()
