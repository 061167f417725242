"""Bug: the captioning encoder's Inception backbone is built with aux_logits=True, so in training mode it returns an InceptionOutputs namedtuple (logits, aux_logits) instead of a tensor, and the encoder applies ReLU to the whole namedtuple.

family: shape
category: model-outputs
expected: TypeError
message: must be Tensor, not InceptionOutputs
source: https://github.com/aladdinpersson/Machine-Learning-Collection/issues/161
"""
from collections import namedtuple

import torch
import torch.nn as nn

InceptionOutputs = namedtuple("InceptionOutputs", ["logits", "aux_logits"])


class MiniInception(nn.Module):
    def __init__(self, num_classes=1000, aux_logits=True):
        super().__init__()
        self.aux_logits = aux_logits
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.AuxLogits = nn.Linear(16, num_classes) if aux_logits else None
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        feats = self.stem(x)
        if self.training and self.aux_logits:
            return InceptionOutputs(self.fc(feats), self.AuxLogits(feats))  # cause: a namedtuple in training mode
        return self.fc(feats)


class EncoderCNN(nn.Module):
    def __init__(self, embed_size):
        super().__init__()
        self.inception = MiniInception(aux_logits=True)
        self.inception.fc = nn.Linear(self.inception.fc.in_features, embed_size)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(0.5)

    def forward(self, images):
        features = self.inception(images)
        return self.dropout(self.relu(features))  # bug: ReLU of an InceptionOutputs namedtuple


class DecoderRNN(nn.Module):
    def __init__(self, embed_size, hidden_size, vocab_size):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.lstm = nn.LSTM(embed_size, hidden_size)
        self.linear = nn.Linear(hidden_size, vocab_size)

    def forward(self, features, captions):
        embeddings = torch.cat((features.unsqueeze(0), self.embed(captions)), dim=0)
        hiddens, _ = self.lstm(embeddings)
        return self.linear(hiddens)


def main():
    torch.manual_seed(0)
    embed_size, hidden_size, vocab_size = 16, 32, 50
    encoder, decoder = EncoderCNN(embed_size), DecoderRNN(embed_size, hidden_size, vocab_size)
    params = list(encoder.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.Adam(params, lr=3e-4)
    criterion = nn.CrossEntropyLoss()
    encoder.train()
    decoder.train()
    for step in range(2):
        imgs, captions = torch.randn(4, 3, 32, 32), torch.randint(0, vocab_size, (7, 4))
        outputs = decoder(encoder(imgs), captions[:-1])
        loss = criterion(outputs.reshape(-1, vocab_size), captions.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: {loss.item():.3f}")


if __name__ == "__main__":
    main()
