"""Bug: Tacotron2 is run with fp16_run=True, so the mel spectrograms it hands to the vocoder are float16; the HiFi-GAN generator was loaded in float32 and its first Conv1d refuses the half mel.

family: precision
category: mixed-precision
expected: RuntimeError
message: Input type (c10::Half) and bias type (float) should be the same
source: https://github.com/jik876/hifi-gan/issues/44
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

hparams = dict(fp16_run=True, n_symbols=30, symbols_embedding_dim=16, n_mel_channels=8, max_decoder_steps=12)
h = dict(upsample_rates=[2, 2], upsample_initial_channel=16, resblock_kernel_sizes=[3], num_mels=8)


class Tacotron2(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.embedding = nn.Embedding(hp["n_symbols"], hp["symbols_embedding_dim"])
        self.encoder = nn.GRU(hp["symbols_embedding_dim"], 16, batch_first=True)
        self.mel_proj = nn.Linear(16, hp["n_mel_channels"])
        self.steps = hp["max_decoder_steps"]

    def inference(self, text):
        enc, _ = self.encoder(self.embedding(text))
        frames = enc[:, -1:].expand(-1, self.steps, -1) * torch.linspace(0, 1, self.steps, dtype=enc.dtype)[None, :, None]
        return self.mel_proj(frames).transpose(1, 2)


class Generator(nn.Module):
    def __init__(self, h):
        super().__init__()
        ch = h["upsample_initial_channel"]
        self.conv_pre = nn.Conv1d(h["num_mels"], ch, 7, 1, padding=3)
        self.ups = nn.ModuleList()
        for i, u in enumerate(h["upsample_rates"]):
            self.ups.append(nn.ConvTranspose1d(ch // (2 ** i), ch // (2 ** (i + 1)), u * 2, u, padding=u // 2))
        self.conv_post = nn.Conv1d(ch // (2 ** len(h["upsample_rates"])), 1, 7, 1, padding=3)

    def forward(self, x):
        x = self.conv_pre(x)  # bug: float16 mel into the float32 conv
        for up in self.ups:
            x = up(F.leaky_relu(x, 0.1))
        return torch.tanh(self.conv_post(F.leaky_relu(x)))


def load_tacotron(hp):
    model = Tacotron2(hp).eval()
    if hp["fp16_run"]:
        model.half()  # cause: Tacotron2 in half, so its mel outputs are half
    return model


def main():
    torch.manual_seed(0)
    tacotron = load_tacotron(hparams)
    generator = Generator(h).eval()
    text = torch.randint(1, hparams["n_symbols"], (1, 10))
    with torch.no_grad():
        mel = tacotron.inference(text)
        audio = generator(mel).squeeze()
    audio = audio * 32768.0
    print(audio.shape, float(audio.abs().max()))


if __name__ == "__main__":
    main()
