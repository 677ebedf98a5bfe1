"""factory_boy factories for the scoring models."""
from datetime import datetime
from datetime import timezone as dt_timezone

import factory

from scoring.models import Benchmark, ModelEntry, Phase, Sample, Split


class BenchmarkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Benchmark
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"bench-{n}")
    name = factory.LazyAttribute(lambda o: o.slug.upper())
    scorer = "dummy"


class PhaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Phase

    benchmark = factory.SubFactory(BenchmarkFactory)
    name = factory.Sequence(lambda n: f"Phase {n}")
    slug = factory.Sequence(lambda n: f"phase-{n}")
    opens_at = datetime(2020, 1, 1, tzinfo=dt_timezone.utc)


class SplitFactory(factory.django.DjangoModelFactory):
    """A split; `daily_quota=N` puts it in a phase of its own with that quota (quotas are the phase's)."""

    class Meta:
        model = Split
        skip_postgeneration_save = True

    benchmark = factory.SubFactory(BenchmarkFactory)
    name = "dev"
    hidden_ground_truth = False
    is_default = True

    @factory.post_generation
    def daily_quota(obj, create, extracted, **kwargs):
        if extracted is None:
            return
        obj.phase = PhaseFactory(benchmark=obj.benchmark, name=obj.name.capitalize(), daily_quota=extracted)
        if create:
            obj.save(update_fields=["phase"])


class SampleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Sample

    split = factory.SubFactory(SplitFactory)
    key = factory.Sequence(lambda n: f"s{n:04d}")
    position = factory.Sequence(lambda n: n)


class ModelEntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ModelEntry

    name = factory.Sequence(lambda n: f"Model-{n}")
    slug = factory.Sequence(lambda n: f"model-{n}")
