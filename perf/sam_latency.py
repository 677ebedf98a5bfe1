"""Segmentation latency: cached-embedding segment round trips (SAM decoder, multimask), the classical
backend on 1280x720, and embedding time per image.

    .venv/bin/python perf/sam_latency.py [--requests 200] [--embed-images 2] [--device cpu|cuda] [--skip-api]

The SAM model is vit_b with random weights (no checkpoint is ever downloaded): the decoder's cost does not
depend on the weights' values, so the timings are those of a real checkpoint. "Round trip" is a POST to
/api/annotation/images/{id}/segment/ through Django's test client in this process (URL routing, token auth,
serializers, loading the cached float16 embedding, decoding, RLE encoding, JSON) — everything but the socket.
Targets (issue 7): SAM round trip p50 < 150 ms and p99 < 300 ms; classical p50 < 300 ms on 1280x720.
"""
from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def drawn_image(height: int, width: int, seed: int = 0) -> np.ndarray:
    import cv2

    rng = np.random.default_rng(seed)
    image = rng.normal(120, 12, size=(height, width, 3)).clip(0, 255).astype(np.uint8)
    cv2.circle(image, (int(width * 0.3), int(height * 0.5)), int(height * 0.18), (200, 40, 40), -1)
    cv2.rectangle(image, (int(width * 0.6), int(height * 0.25)), (int(width * 0.85), int(height * 0.7)), (40, 60, 200), -1)
    return image


def png(image: np.ndarray) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return buffer.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--embed-images", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--decoder-threads", type=int, default=1, help="torch threads per click (0: torch's default)")
    parser.add_argument("--skip-api", action="store_true", help="time the core calls only (no Django)")
    args = parser.parse_args()

    import torch
    from segment_anything import sam_model_registry

    from annotation.core.segmentation import ClassicBackend, SamBackend

    print(f"torch {torch.__version__}, threads {torch.get_num_threads()} (decoder {args.decoder_threads or 'default'}), "
          f"device {args.device}, load average {os.getloadavg()[0]:.1f}"
          + (f" ({torch.cuda.get_device_name(0)})" if args.device.startswith("cuda") else ""))
    torch.manual_seed(0)
    sam = SamBackend(sam_model_registry["vit_b"](checkpoint=None), model_type="vit_b", device=args.device,
                     decoder_threads=args.decoder_threads or None)

    # --- embedding time per image ---
    times = []
    embedding = None
    for k in range(args.embed_images + (1 if args.device.startswith("cuda") else 0)):
        image = drawn_image(480, 640, seed=k)
        started = time.perf_counter()
        embedding = sam.embed(image)
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()
        times.append(time.perf_counter() - started)
    if args.device.startswith("cuda"):
        times = times[1:]  # the first call includes CUDA start-up
    print(f"SAM vit_b embedding (640x480 -> 1024): {statistics.mean(times):.2f} s per image "
          f"(runs: {', '.join(f'{t:.2f}' for t in times)})")

    # --- SAM decoder from the cached embedding, core only ---
    rng = np.random.default_rng(1)
    core_ms = []
    for _ in range(args.requests):
        x, y = float(rng.uniform(0, 639)), float(rng.uniform(0, 479))
        started = time.perf_counter()
        sam.segment(embedding, points=[[x, y, 1]], multimask=True)
        core_ms.append((time.perf_counter() - started) * 1000)
    print(f"SAM segment from cached embedding (core, multimask): p50 {percentile(core_ms, 50):.1f} ms, "
          f"p99 {percentile(core_ms, 99):.1f} ms over {len(core_ms)}")

    classic = ClassicBackend()
    big = drawn_image(720, 1280)
    classic_embedding = classic.embed(big)
    classic_ms = []
    prompts = [{"points": [[384, 360, 1]]}, {"box": [230, 230, 540, 490]}, {"points": [[900, 300, 1]]},
               {"box": [760, 170, 1100, 510]}, {"points": [[800, 200, 1], [1050, 480, 1], [384, 360, 0]]}]
    for i in range(max(20, args.requests // 5)):
        started = time.perf_counter()
        classic.segment(classic_embedding, multimask=True, **prompts[i % len(prompts)])
        classic_ms.append((time.perf_counter() - started) * 1000)
    print(f"classical GrabCut on 1280x720 (core): p50 {percentile(classic_ms, 50):.1f} ms, "
          f"p99 {percentile(classic_ms, 99):.1f} ms over {len(classic_ms)}")

    if args.skip_api:
        return 0

    # --- the same through the API, with a throw-away database and media folder ---
    workdir = Path(tempfile.mkdtemp(prefix="sam-latency-"))
    os.environ["EBH_VAR_DIR"] = str(workdir)
    os.environ["MEDIA_ROOT"] = str(workdir / "media")
    os.environ["SAM_EMBEDDING_DIR"] = str(workdir / "embeddings")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from annotation import embeddings
    from annotation.services.projects import images_upload
    from annotation.services.segmentation import embedding_request

    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench", password="bench-pw-123")
    user.groups.add(Group.objects.get_or_create(name="curator")[0])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")

    def api_round_trips(backend, image: np.ndarray, prompts: list[dict], n: int) -> list[float]:
        embeddings.segmentation_backend_install(backend)
        result = images_upload(user=user, name="bench.png", data=png(image))
        row = embedding_request(image=result.images[0])
        embeddings.embedding_compute(embedding_id=row.pk)
        url = f"/api/annotation/images/{result.images[0].pk}/segment/"
        assert client.post(url, prompts[0], format="json").status_code == 200  # warm the in-memory cache
        out = []
        for i in range(n):
            started = time.perf_counter()
            response = client.post(url, prompts[i % len(prompts)], format="json")
            out.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.content[:300]
        return out

    sam_prompts = [{"points": [[float(x), float(y), 1]], "multimask": True}
                   for x, y in np.random.default_rng(2).uniform([0, 0], [639, 479], size=(50, 2))]
    sam_api = api_round_trips(sam, drawn_image(480, 640, seed=7), sam_prompts, args.requests)
    print(f"SAM segment API round trip (cached embedding, multimask): p50 {percentile(sam_api, 50):.1f} ms, "
          f"p99 {percentile(sam_api, 99):.1f} ms over {len(sam_api)}  [target p50 < 150, p99 < 300]")
    classic_api = api_round_trips(classic, big, [{**p, "multimask": True} for p in prompts], max(20, args.requests // 5))
    print(f"classical segment API round trip on 1280x720: p50 {percentile(classic_api, 50):.1f} ms, "
          f"p99 {percentile(classic_api, 99):.1f} ms over {len(classic_api)}  [target p50 < 300]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
