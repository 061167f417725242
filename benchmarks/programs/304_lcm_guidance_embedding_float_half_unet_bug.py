"""Bug: the latent-consistency pipeline loads its UNet in float16 and embeds the guidance scale with a sinusoidal helper whose dtype defaults to float32; the UNet's timestep_cond projection (a half Linear) gets the float32 embedding and refuses it.

family: precision
category: mixed-precision
expected: RuntimeError
message: mat1 and mat2 must have the same dtype, but got Float and Half
source: https://github.com/luosiallen/latent-consistency-model/issues/46
"""
import math

import torch
import torch.nn as nn


def get_w_embedding(w, embedding_dim=16, dtype=torch.float32):
    w = w * 1000.0
    half_dim = embedding_dim // 2
    emb = math.log(10000.0) / (half_dim - 1)
    emb = torch.exp(torch.arange(half_dim, dtype=dtype) * -emb)
    emb = w.to(dtype)[:, None] * emb[None, :]
    return torch.cat([torch.sin(emb), torch.cos(emb)], dim=1)


class TinyUNet(nn.Module):
    def __init__(self, channels=4, hidden=16, cond_dim=16):
        super().__init__()
        self.time_proj = nn.Linear(1, hidden)
        self.cond_proj = nn.Linear(cond_dim, hidden)
        self.conv_in = nn.Conv2d(channels, hidden, 3, padding=1)
        self.conv_out = nn.Conv2d(hidden, channels, 3, padding=1)

    @property
    def dtype(self):
        return self.conv_in.weight.dtype

    def forward(self, sample, timestep, timestep_cond):
        t_emb = self.time_proj(timestep.to(self.dtype).view(-1, 1) / 1000.0)
        t_emb = t_emb + self.cond_proj(timestep_cond)  # bug: float32 embedding into the float16 projection
        h = self.conv_in(sample) + t_emb[:, :, None, None]
        return self.conv_out(torch.nn.functional.silu(h))


class LatentConsistencyPipeline:
    def __init__(self, unet, num_train_timesteps=1000):
        self.unet = unet
        self.num_train_timesteps = num_train_timesteps

    def __call__(self, batch_size=2, guidance_scale=8.0, num_inference_steps=4, latent_size=8):
        g = torch.Generator().manual_seed(0)
        latents = torch.randn(batch_size, 4, latent_size, latent_size, generator=g).to(self.unet.dtype)
        w = torch.tensor(guidance_scale - 1).repeat(batch_size)
        w_embedding = get_w_embedding(w, embedding_dim=16)  # cause: the embedding stays float32
        timesteps = torch.linspace(self.num_train_timesteps - 1, 0, num_inference_steps).long()
        for t in timesteps:
            ts = torch.full((batch_size,), int(t), dtype=torch.long)
            model_pred = self.unet(latents, ts, timestep_cond=w_embedding)
            alpha = 1.0 - t.item() / self.num_train_timesteps
            latents = (alpha ** 0.5) * latents + ((1 - alpha) ** 0.5) * model_pred
        return latents


def main():
    torch.manual_seed(0)
    unet = TinyUNet().to(torch.float16).eval()
    pipe = LatentConsistencyPipeline(unet)
    with torch.no_grad():
        images = pipe(batch_size=2, guidance_scale=8.0, num_inference_steps=4)
    print(images.shape, images.dtype, float(images.float().abs().mean()))


if __name__ == "__main__":
    main()
