#!/usr/bin/env python3
"""Writes the small ONNX fixtures under workloads/onnx/ from PyTorch models (Debian's python3-torch and
python3-torchvision). Run it by hand when the fixtures should change; CI only reads the committed files.

Weights are left out (torch.onnx.export(..., export_params=False)): they become graph inputs with their
shapes, so shape inference and HeteroSim's importer see every layer's dimensions while a ResNet-18 takes a
few kilobytes instead of 45 MB. The importer counts graph inputs that feed a layer's weight slot as
parameters, exactly as it counts initializers.

    python3 workloads/onnx/make_fixtures.py
"""
import math
import os
import sys

import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 13


class TinyBert(torch.nn.Module):
    """A small BERT-style encoder written out op by op (2 layers, hidden 128, 2 heads, seq 32)."""

    def __init__(self, vocab=1000, hidden=128, heads=2, layers=2, inner=512, positions=64, batch=2, seq=32):
        super().__init__()
        # Static shapes, so the exported graph has constant reshape targets instead of Shape/Gather chains.
        self.heads, self.hidden, self.batch, self.seq = heads, hidden, batch, seq
        self.word = torch.nn.Embedding(vocab, hidden)
        self.position = torch.nn.Embedding(positions, hidden)
        self.norm = torch.nn.LayerNorm(hidden)
        self.layers = torch.nn.ModuleList()
        for _ in range(layers):
            self.layers.append(torch.nn.ModuleDict({
                "q": torch.nn.Linear(hidden, hidden), "k": torch.nn.Linear(hidden, hidden),
                "v": torch.nn.Linear(hidden, hidden), "out": torch.nn.Linear(hidden, hidden),
                "norm1": torch.nn.LayerNorm(hidden), "fc1": torch.nn.Linear(hidden, inner),
                "fc2": torch.nn.Linear(inner, hidden), "norm2": torch.nn.LayerNorm(hidden)}))

    def forward(self, ids, positions):
        x = self.norm(self.word(ids) + self.position(positions))
        b, s, h = self.batch, self.seq, self.hidden
        d = h // self.heads
        for l in self.layers:
            def split(t):
                return t.reshape(b, s, self.heads, d).transpose(1, 2)
            q, k, v = split(l["q"](x)), split(l["k"](x)), split(l["v"](x))
            p = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d), dim=-1)
            c = (p @ v).transpose(1, 2).reshape(b, s, h)
            x = l["norm1"](x + l["out"](c))
            x = l["norm2"](x + l["fc2"](torch.nn.functional.gelu(l["fc1"](x))))
        return x


def tiny_vit():
    """torchvision's own VisionTransformer, small (2 layers, hidden 64, 2 heads, 32x32 images, 16x16 patches).
    Its export computes shapes in the graph: the class token is expanded to the batch through Shape, Gather,
    ConstantOfShape, Equal and Where, and attention slices and reshapes by computed sizes."""
    from torchvision.models.vision_transformer import VisionTransformer
    return VisionTransformer(image_size=32, patch_size=16, num_layers=2, num_heads=2, hidden_dim=64, mlp_dim=128)


def export(model, args, name, input_names):
    model.eval()
    path = os.path.join(HERE, name)
    torch.onnx.export(model, args, path, export_params=False, opset_version=OPSET, input_names=input_names,
                      do_constant_folding=False)
    print(f"wrote {path}: {os.path.getsize(path)} bytes")


def main():
    torch.manual_seed(0)
    export(torchvision.models.resnet18(), (torch.zeros(1, 3, 224, 224),), "resnet18.onnx", ["image"])
    ids = torch.zeros(2, 32, dtype=torch.int64)
    export(TinyBert(), (ids, torch.arange(32).unsqueeze(0).expand(2, 32)), "tiny-bert.onnx", ["ids", "positions"])
    export(tiny_vit(), (torch.zeros(2, 3, 32, 32),), "tiny-vit.onnx", ["image"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
