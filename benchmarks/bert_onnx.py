"""A BERT sentence-transformers folder (``model.safetensors``) as an ONNX model, without torch.

Run: ``python -m benchmarks.bert_onnx SOURCE TARGET`` writes ``TARGET/model.onnx`` and copies
``tokenizer.json``, so :func:`skills_core.context.load_embedder` runs it. Benchmark code only
(``onnx`` comes with the test extra): for all-MiniLM-L6-v2, whose weights a package of the index
bundles (docs/choosing-skills.md, "Semantic retrieval"). The graph is BERT's encoder as the
model's ``config.json`` describes it (post-LayerNorm layers, exact-erf GELU, eps 1e-12), its
output ``last_hidden_state``; the adapter mean-pools it.
"""

from __future__ import annotations

import json
import math
import shutil
import struct
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def safetensors(path: Path) -> dict[str, np.ndarray]:
    """The float32 tensors of a ``.safetensors`` file (a JSON header, then little-endian data)."""
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    header.pop("__metadata__", None)
    body = memoryview(data)[8 + size :]
    return {
        name: np.frombuffer(body[start:end], np.float32).reshape(info["shape"])
        for name, info in header.items()
        for start, end in [info["data_offsets"]]
        if info["dtype"] == "F32"
    }


def export(source: Path, target: Path) -> Path:
    """Write ``target/model.onnx`` and ``target/tokenizer.json`` from ``source``; ``target``."""
    config = json.loads((source / "config.json").read_text())
    weights = {
        k.removeprefix("bert."): v for k, v in safetensors(source / "model.safetensors").items()
    }
    heads, hidden = config["num_attention_heads"], config["hidden_size"]
    eps = config.get("layer_norm_eps", 1e-12)
    nodes: list[onnx.NodeProto] = []
    inits = [
        numpy_helper.from_array(a, name) for name, a in weights.items() if "pooler" not in name
    ]
    constants = {
        "zero": np.array(0, np.int64),
        "one": np.array(1, np.int64),
        "split_heads": np.array([0, 0, heads, hidden // heads], np.int64),
        "join_heads": np.array([0, 0, hidden], np.int64),
        "scale": np.array(1 / math.sqrt(hidden // heads), np.float32),
        "masked": np.array(-1e4, np.float32),
        "root2": np.array(math.sqrt(2), np.float32),
        "half": np.array(0.5, np.float32),
        "onef": np.array(1.0, np.float32),
        "axes12": np.array([1, 2], np.int64),
    }
    inits += [numpy_helper.from_array(value, name) for name, value in constants.items()]

    def node(op: str, inputs: list[str], out: str, **attributes: object) -> str:
        nodes.append(helper.make_node(op, inputs, [out], **attributes))
        return out

    def linear(x: str, name: str, out: str) -> str:
        product = node(
            "MatMul", [x, node("Transpose", [f"{name}.weight"], f"{out}.wt")], f"{out}.mm"
        )
        return node("Add", [product, f"{name}.bias"], out)

    def norm(x: str, name: str, out: str) -> str:
        return node(
            "LayerNormalization", [x, f"{name}.weight", f"{name}.bias"], out, axis=-1, epsilon=eps
        )

    length = node("Gather", [node("Shape", ["input_ids"], "shape"), "one"], "length")
    positions = node("Range", ["zero", length, "one"], "positions")
    words = node("Gather", ["embeddings.word_embeddings.weight", "input_ids"], "words")
    placed = node("Gather", ["embeddings.position_embeddings.weight", positions], "placed")
    kind = node("Gather", ["embeddings.token_type_embeddings.weight", "zero"], "kind")
    x = norm(
        node("Add", [node("Add", [words, placed], "wp"), kind], "wpk"), "embeddings.LayerNorm", "x"
    )
    mask = node("Cast", ["attention_mask"], "maskf", to=TensorProto.FLOAT)
    bias = node("Mul", [node("Sub", ["onef", mask], "unmasked"), "masked"], "bias0")
    bias = node("Unsqueeze", [bias, "axes12"], "bias")
    for layer in range(config["num_hidden_layers"]):
        at = f"encoder.layer.{layer}"
        q, k, v = (
            node(
                "Transpose",
                [
                    node(
                        "Reshape",
                        [linear(x, f"{at}.attention.self.{p}", f"{at}.{p}"), "split_heads"],
                        f"{at}.{p}h",
                    )
                ],
                f"{at}.{p}t",
                perm=perm,
            )
            for p, perm in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]), ("value", [0, 2, 1, 3]))
        )
        scores = node("Mul", [node("MatMul", [q, k], f"{at}.qk"), "scale"], f"{at}.scaled")
        weights_ = node(
            "Softmax", [node("Add", [scores, bias], f"{at}.biased")], f"{at}.sm", axis=-1
        )
        context = node(
            "Transpose",
            [node("MatMul", [weights_, v], f"{at}.ctx")],
            f"{at}.ctxt",
            perm=[0, 2, 1, 3],
        )
        context = node("Reshape", [context, "join_heads"], f"{at}.ctxj")
        attended = linear(context, f"{at}.attention.output.dense", f"{at}.ao")
        x = norm(
            node("Add", [x, attended], f"{at}.res1"), f"{at}.attention.output.LayerNorm", f"{at}.x1"
        )
        inner = linear(x, f"{at}.intermediate.dense", f"{at}.inner")
        erf = node("Erf", [node("Div", [inner, "root2"], f"{at}.scaledin")], f"{at}.erf")
        gelu = node(
            "Mul",
            [
                node("Mul", [inner, "half"], f"{at}.halfin"),
                node("Add", [erf, "onef"], f"{at}.erf1"),
            ],
            f"{at}.gelu",
        )
        out = linear(gelu, f"{at}.output.dense", f"{at}.out")
        x = norm(node("Add", [x, out], f"{at}.res2"), f"{at}.output.LayerNorm", f"{at}.x2")
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    ints = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "pieces"])
        for n in ("input_ids", "attention_mask")
    ]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "bert", ints, [output], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    target.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(target / "model.onnx"))
    shutil.copy(source / "tokenizer.json", target / "tokenizer.json")
    return target


if __name__ == "__main__":
    export(Path(sys.argv[1]), Path(sys.argv[2]))
