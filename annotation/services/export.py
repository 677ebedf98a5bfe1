"""Export of items and projects as EPIC-Bench files."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from annotation.core import export as export_core
from annotation.core import images as image_core
from annotation.core.epic import leaf_for
from annotation.models import Item, Project
from annotation.services.editing import item_images


def item_export_files(*, item: Item) -> list[export_core.ExportFile]:
    leaf = leaf_for(item.project.leaf)
    images = item_images(item)
    payloads = []
    for image in images:
        with image.file.open("rb") as handle:
            payloads.append(export_core.ExportImage(image_core.ALLOWED_FORMATS[image.format], handle.read()))
    overlay = None
    if item.overlay:
        with item.overlay.open("rb") as handle:
            overlay = handle.read()
    decoded = image_core.decode_rgb(payloads[0].data) if leaf.overlay is not None and overlay is None else None
    export_item = export_core.ExportItem(
        leaf=leaf, sample=f"{item.project.slug}-{item.pk:06d}", images=tuple(payloads), texts=item.texts or {},
        count=item.count, precise_count=item.precise_count, count_in_description=item.count_in_description,
        placement_feasible=item.placement_feasible, instances=item.instances or {}, overlay_png=overlay,
        provenance=item.provenance or {}, version=item.version,
    )
    return export_core.export_files(export_item, decoded_first_image=decoded)


def project_export(*, project: Project, root: Path, states: Sequence[str] | None = None) -> list[Path]:
    """Write every item (optionally only those in `states`) of the project under root/EPIC_Bench/..."""
    items = project.items.filter(honeypot_of__isnull=True)  # honeypot copies are checks, not samples
    if states:
        items = items.filter(state__in=states)
    written: list[Path] = []
    for item in items:
        written += export_core.write_files(item_export_files(item=item), root)
    return written
