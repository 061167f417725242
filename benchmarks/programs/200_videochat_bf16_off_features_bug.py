"""Bug: the training arguments default to bf16=False, so the model trains in float32, but the dataset casts the cached CLIP video features to bfloat16 unconditionally; the mm_projector Linear refuses BFloat16 features against its Float weight.

family: precision
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/mbzuai-oryx/Video-ChatGPT/issues/21
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


@dataclass
class ModelArguments:
    mm_hidden_size: int = 32
    hidden_size: int = 48
    vocab_size: int = 100


@dataclass
class TrainingArguments:
    bf16: bool = False
    tf32: bool = False
    per_device_train_batch_size: int = 2
    learning_rate: float = 2e-5
    num_frames: int = 4


class LazySupervisedDataset(Dataset):
    def __init__(self, n, model_args, training_args):
        g = torch.Generator().manual_seed(0)
        self.features = torch.randn(n, training_args.num_frames, model_args.mm_hidden_size, generator=g)
        self.input_ids = torch.randint(0, model_args.vocab_size, (n, 10), generator=g)

    def __len__(self):
        return len(self.input_ids)

    def __getitem__(self, i):
        video_token = self.features[i].to(torch.bfloat16)  # cause: cached features cast to bf16 whatever --bf16 says
        return {"video_spatio_temporal_features": video_token, "input_ids": self.input_ids[i]}


class VideoChatGPTLlama(nn.Module):
    def __init__(self, model_args):
        super().__init__()
        self.embed_tokens = nn.Embedding(model_args.vocab_size, model_args.hidden_size)
        self.mm_projector = nn.Linear(model_args.mm_hidden_size, model_args.hidden_size)
        self.lm_head = nn.Linear(model_args.hidden_size, model_args.vocab_size)

    def forward(self, input_ids, video_spatio_temporal_features):
        video_features = self.mm_projector(video_spatio_temporal_features)  # bug: bf16 features, float32 projector
        inputs_embeds = torch.cat([video_features, self.embed_tokens(input_ids)], dim=1)
        return self.lm_head(inputs_embeds)[:, video_features.shape[1]:]


def train(model_args, training_args):
    torch.manual_seed(0)
    compute_dtype = torch.bfloat16 if training_args.bf16 else torch.float32
    model = VideoChatGPTLlama(model_args).to(compute_dtype)
    dataset = LazySupervisedDataset(6, model_args, training_args)
    loader = DataLoader(dataset, batch_size=training_args.per_device_train_batch_size, shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=training_args.learning_rate)
    for batch in loader:
        logits = model(batch["input_ids"], batch["video_spatio_temporal_features"])
        loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, model_args.vocab_size),
                                           batch["input_ids"][:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    train(ModelArguments(), TrainingArguments())
