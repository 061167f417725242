"""Bug: with --bf16 the reward scorer allocates its per-question score table in the model's dtype (bfloat16), then writes the yes-probabilities, computed in float32 for a stable softmax, into it by mask; index_put refuses Float into BFloat16.

family: precision
category: mixed-precision
expected: RuntimeError
message: Index put requires the source and destination dtypes match
source: https://github.com/zai-org/VisionReward/issues/7
"""
import argparse

import torch
import torch.nn as nn

YES, NO = 1, 0


class ChecklistVQA(nn.Module):
    def __init__(self, vocab=40, dim=16, img_dim=12):
        super().__init__()
        self.tok = nn.EmbeddingBag(vocab, dim)
        self.img = nn.Linear(img_dim, dim)
        self.answer = nn.Linear(dim, 2)

    @property
    def dtype(self):
        return next(self.parameters()).dtype

    def forward(self, image_feats, question_ids):
        fused = self.tok(question_ids) * self.img(image_feats.to(self.dtype))
        return self.answer(torch.tanh(fused))


def score_image(model, image_feats, questions):
    answers = torch.full((len(questions),), float("nan"), dtype=model.dtype)  # cause: score table in bfloat16
    valid = torch.tensor([q is not None for q in questions])
    question_ids = torch.stack([q for q in questions if q is not None])
    with torch.no_grad():
        logits = model(image_feats.expand(len(question_ids), -1), question_ids)
    p_yes = logits.float().softmax(-1)[:, YES]
    answers[valid] = p_yes  # bug: Float probabilities into a BFloat16 table
    return answers


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bf16", action="store_true")
    parser.add_argument("--score", action="store_true")
    args = parser.parse_args(["--bf16", "--score"])
    torch.manual_seed(0)
    model = ChecklistVQA().eval()
    if args.bf16:
        model = model.to(torch.bfloat16)
    image_feats = torch.randn(1, 12)
    questions = [torch.randint(0, 40, (5,)), None, torch.randint(0, 40, (5,)), torch.randint(0, 40, (5,))]
    answers = score_image(model, image_feats, questions)
    weights = torch.tensor([0.5, 1.0, -0.3, 0.8])
    if args.score:
        print("score", torch.nansum(answers.float() * weights).item())


if __name__ == "__main__":
    main()
