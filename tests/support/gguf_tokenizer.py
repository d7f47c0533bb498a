"""Build a Hugging Face tokenizer from a GGUF file's own tokenizer, offline, and lay it out as a Hub
cache snapshot. Run with a tool's own Python (AIPerf's venv has gguf and transformers, no torch):

    python gguf_tokenizer.py MODEL.gguf HUB_CACHE REPO_ID

AIPerf 0.13 loads a tokenizer in offline mode (HF_HUB_OFFLINE=1) only from the Hub cache
(`snapshot_download(local_files_only=True)`), not from a folder path, so the tokenizer is written
where that finds it: HUB_CACHE/models--ORG--NAME/snapshots/REV with refs/main naming REV. gguf reads
the file's metadata; transformers' GGUF tokenizer mapping builds the tokenizer from it, as
`AutoTokenizer.from_pretrained(..., gguf_file=...)` does where torch is installed."""

from __future__ import annotations

import sys
from pathlib import Path

# The special tokens a GGUF names by id (llama.cpp's tokenizer.ggml.*_token_id keys).
SPECIAL = {"bos_token": "bos_token_id", "eos_token": "eos_token_id", "unk_token": "unknown_token_id", "pad_token": "padding_token_id"}
REVISION = "0" * 40


def main(gguf_path: str, hub_cache: str, repo_id: str) -> None:
    from gguf import GGUFReader
    from transformers import PreTrainedTokenizerFast
    from transformers.integrations.gguf.gguf_tokenizer_mapping import GGUF_TOKENIZER_MAPPING, convert_gguf_tokenizer

    fields = GGUFReader(gguf_path).fields
    meta = {name: field.contents() for name, field in fields.items() if name.startswith("tokenizer.") or name == "general.architecture"}
    grouped = {
        group: {name: meta[f"tokenizer.{key}"] for key, name in renames.items() if f"tokenizer.{key}" in meta}
        for group, renames in GGUF_TOKENIZER_MAPPING.items()
    }
    tokenizer, config = grouped["tokenizer"], grouped["tokenizer_config"]
    if tokenizer.get("tokenizer_type") == "llama":
        config.setdefault("add_bos_token", True)  # llama.cpp adds BOS to a sentencepiece vocabulary
    for name, key in SPECIAL.items():
        token_id = meta.get(f"tokenizer.ggml.{key}")
        if token_id is not None:
            config[name] = tokenizer["tokens"][token_id]
    backend, _ = convert_gguf_tokenizer(meta["general.architecture"], tokenizer)
    built = PreTrainedTokenizerFast(tokenizer_object=backend, **{k: v for k, v in config.items() if v is not None})
    repo = Path(hub_cache) / ("models--" + repo_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(REVISION)
    built.save_pretrained(repo / "snapshots" / REVISION)
    print(" ".join(map(str, built.encode("Hello world, this is a test."))))


if __name__ == "__main__":
    main(*sys.argv[1:4])
