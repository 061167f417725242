"""Bug: the identity encoder is kept in float32 "for accuracy" while the UNet runs in float16; the UNet's ID attention processor uses the encoder's float32 identity tokens directly as keys and values, and the batched matmul with the half queries refuses the mix.

family: precision
category: mixed-precision
expected: RuntimeError
message: expected scalar type Float but found Half
source: https://github.com/ToTheBeginning/PuLID/issues/161
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class IDFormer(nn.Module):
    def __init__(self, face_dim=12, dim=16, num_tokens=4):
        super().__init__()
        self.num_tokens = num_tokens
        self.proj = nn.Sequential(nn.Linear(face_dim, 32), nn.GELU(), nn.Linear(32, dim * num_tokens))

    def forward(self, face_embed):
        return self.proj(face_embed).view(face_embed.shape[0], self.num_tokens, -1)


class IDAttnProcessor(nn.Module):
    def __init__(self, dim=16, id_scale=1.0):
        super().__init__()
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_out = nn.Linear(dim, dim)
        self.id_scale = id_scale

    def forward(self, hidden_states, id_embedding):
        query = self.to_q(hidden_states)
        scores = torch.bmm(query, id_embedding.transpose(1, 2)) / query.shape[-1] ** 0.5  # bug: half queries, float32 id keys
        id_out = torch.bmm(scores.softmax(-1), id_embedding)
        return hidden_states + self.id_scale * self.to_out(id_out)


class TinyUNet(nn.Module):
    def __init__(self, channels=4, dim=16):
        super().__init__()
        self.conv_in = nn.Conv2d(channels, dim, 3, padding=1)
        self.id_attn = IDAttnProcessor(dim)
        self.conv_out = nn.Conv2d(dim, channels, 3, padding=1)

    def forward(self, latents, id_embedding):
        h = self.conv_in(latents)
        b, c, hh, ww = h.shape
        tokens = self.id_attn(h.flatten(2).transpose(1, 2), id_embedding)
        return self.conv_out(tokens.transpose(1, 2).reshape(b, c, hh, ww))


class PuLIDPipeline:
    def __init__(self, unet, id_encoder):
        self.unet = unet.to(torch.float16)
        self.id_encoder = id_encoder.float()  # cause: the ID encoder and its tokens stay float32

    @torch.no_grad()
    def get_id_embedding(self, face_embed):
        return self.id_encoder(face_embed)

    @torch.no_grad()
    def inference(self, face_embed, steps=3, size=6):
        id_embedding = self.get_id_embedding(face_embed)
        g = torch.Generator().manual_seed(0)
        latents = torch.randn(face_embed.shape[0], 4, size, size, generator=g).half()
        for _ in range(steps):
            latents = latents - 0.1 * self.unet(latents, id_embedding)
        return latents


def main():
    torch.manual_seed(0)
    pipe = PuLIDPipeline(TinyUNet(), IDFormer())
    face_embed = F.normalize(torch.randn(2, 12), dim=-1)
    out = pipe.inference(face_embed)
    print(out.shape, out.dtype, float(out.float().std()))


if __name__ == "__main__":
    main()
