"""factory_boy factories for the scoring models."""
import factory

from scoring.models import Benchmark, ModelEntry, Sample, Split


class BenchmarkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Benchmark
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"bench-{n}")
    name = factory.LazyAttribute(lambda o: o.slug.upper())
    scorer = "dummy"


class SplitFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Split

    benchmark = factory.SubFactory(BenchmarkFactory)
    name = "dev"
    hidden_ground_truth = False
    is_default = True


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
