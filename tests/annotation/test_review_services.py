"""Review rounds, permissions, second opinions, publishing into split versions, audit trail (services)."""
import numpy as np
import pytest
from django.contrib.auth.models import Group

from annotation.core import rle
from annotation.core.review import diff_snapshots
from annotation.models import AuditEvent, Item, PublishedSample, Review, ReviewConfig, SecondOpinion
from annotation.review import selectors as review_selectors
from annotation.review import services as rs
from annotation.services.editing import item_save, item_submit
from annotation.services.errors import AnnotationError
from scoring.models import ModelEntry, Sample, Split, Submission

pytestmark = pytest.mark.django_db


def _box(y1, y2, x1, x2, size=(360, 640)):
    mask = np.zeros(size, bool)
    mask[y1:y2, x1:x2] = True
    return rle.encode(mask)


def _user(django_user_model, name, group):
    user = django_user_model.objects.create_user(name, password=f"pw-{name}-123")
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


@pytest.fixture
def reviewers(django_user_model):
    return _user(django_user_model, "rob", "reviewer"), _user(django_user_model, "rita", "reviewer")


@pytest.fixture
def item(item_factory, annotator, scene_png):
    [item] = item_factory(scene_png[0], assignee=annotator)
    return item


def _submit(user, item, **kwargs):
    item.refresh_from_db()
    labels = dict(texts={"text_label": "the red disc"}, count=1, precise_count=True,
                  instances={"masklet_target": [_box(100, 200, 100, 200)]})
    labels.update(kwargs)
    saved = item_save(user=user, item_id=item.pk, version=item.version, **labels)
    return item_submit(user=user, item_id=item.pk, version=saved.version)


def _review(user, item, verdict="accept", **kwargs):
    item.refresh_from_db()
    rs.review_open(user=user, item=item)
    return rs.review_submit(user=user, item_id=item.pk, version=item.version,
                            round=rs.item_progress(item).current_round, verdict=verdict, **kwargs)


def test_two_rounds_by_two_reviewers_accept_and_every_change_is_audited(item, annotator, reviewers):
    rob, rita = reviewers
    _submit(annotator, item)
    first = _review(rob, item)
    item.refresh_from_db()
    assert first.round == 1 and item.state == Item.State.SUBMITTED and rs.item_progress(item).current_round == 2
    with pytest.raises(AnnotationError, match="round 2 needs a different reviewer"):
        _review(rob, item)
    second = _review(rita, item)
    item.refresh_from_db()
    assert second.round == 2 and item.state == Item.State.ACCEPTED
    assert second.revision.kind == "submit" and second.revision.snapshot["count"] == 1  # the pinned version
    actions = list(AuditEvent.objects.filter(item=item).order_by("pk").values_list("action", "actor__username",
                                                                                    "to_state"))
    assert actions == [("save", "anna", "in_progress"), ("submit", "anna", "submitted"),
                       ("review_pass", "rob", "submitted"), ("accept", "rita", "accepted")]


def test_the_annotator_never_reviews_their_item_even_as_a_reviewer(item, annotator, reviewers):
    annotator.groups.add(Group.objects.get(name="reviewer"))
    _submit(annotator, item)
    with pytest.raises(AnnotationError, match="annotator never reviews their own item") as info:
        _review(annotator, item)
    assert info.value.status == 403 and not Review.objects.exists()


def test_only_reviewers_review(item, annotator, other_user):
    _submit(annotator, item)
    with pytest.raises(AnnotationError, match="Only reviewers"):
        _review(other_user, item)


def test_revise_sends_back_with_comments_and_the_new_version_restarts_the_failed_round(
    item, annotator, reviewers, curator
):
    rob, rita = reviewers
    rs.review_config_set(user=curator, project=item.project, rounds_required=3)
    _submit(annotator, item)
    _review(rob, item)
    _review(rita, item, "revise", reasons=["mask_quality"], comment="the disc mask misses its left edge",
            markers=[{"x": 95, "y": 150, "note": "here"}])
    item.refresh_from_db()
    assert item.state == Item.State.NEEDS_REVISION
    [comment] = review_selectors.review_comments_for_editor(item)
    assert comment.comment == "the disc mask misses its left edge" and comment.markers[0]["x"] == 95.0
    _submit(annotator, item, instances={"masklet_target": [_box(100, 200, 90, 200)]})
    item.refresh_from_db()
    progress = rs.item_progress(item)
    assert progress.current_round == 2 and progress.passed_reviewers == (rob.pk,)
    pinned = rs.pinned_revision(item)
    diff = diff_snapshots(rs.previous_submission(item, pinned).snapshot, pinned.snapshot)
    assert diff.masklets[0].matched[0][2] == pytest.approx(10000 / 11000, abs=1e-4)
    third = _review(rita, item)  # the reviewer who asked for the change may check it
    assert third.round == 2


def test_a_stale_review_is_refused(item, annotator, reviewers):
    rob, rita = reviewers
    _submit(annotator, item)
    item.refresh_from_db()
    rs.review_open(user=rob, item=item)
    rs.review_open(user=rita, item=item)
    rs.review_submit(user=rob, item_id=item.pk, version=item.version, round=1, verdict="accept")
    with pytest.raises(AnnotationError, match="Round 1 was already decided") as info:
        rs.review_submit(user=rita, item_id=item.pk, version=item.version, round=1, verdict="accept")
    assert info.value.status == 409
    with pytest.raises(AnnotationError, match="changed since you opened it"):
        rs.review_submit(user=rita, item_id=item.pk, version=item.version - 1, round=2, verdict="accept")


def test_bad_review_forms_name_the_field(item, annotator, reviewers):
    _submit(annotator, item)
    with pytest.raises(AnnotationError, match="reasons: a revise verdict needs at least one reason") as info:
        _review(reviewers[0], item, "revise", comment="fix")
    assert info.value.field == "reasons"
    with pytest.raises(AnnotationError, match=r"markers\[0\]: \(700, 5\) is outside image 1 \(640x360\)"):
        _review(reviewers[0], item, "revise", reasons=["label_error"], comment="x", markers=[{"x": 700, "y": 5}])


def test_concurrent_saves_of_one_item_the_second_is_refused_not_overwritten(item, annotator, curator):
    item.refresh_from_db()
    version = item.version
    item_save(user=annotator, item_id=item.pk, version=version, count=1, texts={"text_label": "tab one"})
    with pytest.raises(AnnotationError, match="changed since you loaded it") as info:
        item_save(user=curator, item_id=item.pk, version=version, count=5, texts={"text_label": "tab two"})
    assert info.value.status == 409
    assert Item.objects.get(pk=item.pk).texts == {"text_label": "tab one"}


def _accepted(item, annotator, reviewers, **labels):
    _submit(annotator, item, **labels)
    _review(reviewers[0], item)
    _review(reviewers[1], item)
    item.refresh_from_db()
    assert item.state == Item.State.ACCEPTED
    return item


def test_publish_imports_the_item_as_an_epic_sample_linked_to_its_history(item, annotator, reviewers, curator):
    _accepted(item, annotator, reviewers)
    split, [link] = rs.items_publish(user=curator, item_ids=[item.pk], split_name="annotated")
    item.refresh_from_db()
    assert item.state == Item.State.PUBLISHED and split.version == 1
    sample = Sample.objects.get(split=split)
    assert sample.key == f"EPIC_Bench/TargetLocalization/BasicAttributes/Color/colors-{item.pk:06d}/" \
                         f"colors-{item.pk:06d}_mask_rle.json"
    assert sample.task == "Color" and sample.inputs["prompt"] == ["Target Object Description: the red disc"]
    assert sample.inputs["annotation_item"]["item"] == item.pk
    assert rle.area(sample.ground_truth["mask_annotation"]["masklet_target"][0]) == 10000
    assert link.sample == sample and link.item == item
    with pytest.raises(AnnotationError, match="is published already in epic-bench/annotated") as info:
        rs.items_publish(user=curator, item_ids=[item.pk], split_name="annotated")
    assert info.value.status == 409


def test_publishing_an_item_not_accepted_or_by_a_non_curator_is_refused(item, annotator, reviewers, curator):
    _submit(annotator, item)
    with pytest.raises(AnnotationError, match="is submitted for review; only accepted items are published"):
        rs.items_publish(user=curator, item_ids=[item.pk], split_name="annotated")
    with pytest.raises(AnnotationError, match="Only curators publish"):
        rs.items_publish(user=reviewers[0], item_ids=[item.pk], split_name="annotated")
    assert not Split.objects.filter(name="annotated").exists()


def test_a_correction_of_a_published_sample_makes_a_new_split_version(
    item_factory, item, annotator, reviewers, curator, scene_png
):
    [other] = item_factory(scene_png[0], name="other.png", project=item.project, assignee=annotator)
    _accepted(item, annotator, reviewers)
    _accepted(other, annotator, reviewers, texts={"text_label": "the blue box"},
              instances={"masklet_target": [_box(90, 252, 384, 544)]})
    v1, _ = rs.items_publish(user=curator, item_ids=[item.pk, other.pk], split_name="annotated")
    entry = ModelEntry.objects.create(name="m", slug="m")
    scored = Submission.objects.create(model_entry=entry, split=v1, status="scored")
    old_gt = Sample.objects.get(split=v1, inputs__annotation_item__item=item.pk).ground_truth

    rs.item_reopen(user=curator, item_id=item.pk, reason="the disc mask is too small")
    item.refresh_from_db()
    assert item.state == Item.State.NEEDS_REVISION and rs.item_progress(item).status == "not_started"
    _accepted(item, annotator, reviewers, instances={"masklet_target": [_box(100, 220, 100, 220)]})
    v2, _ = rs.items_publish(user=curator, item_ids=[item.pk], split_name="annotated")

    assert (v1.version, v2.version) == (1, 2)
    assert Sample.objects.get(split=v1, inputs__annotation_item__item=item.pk).ground_truth == old_gt  # untouched
    corrected = Sample.objects.get(split=v2, inputs__annotation_item__item=item.pk)
    assert rle.area(corrected.ground_truth["mask_annotation"]["masklet_target"][0]) == 120 * 120
    assert Sample.objects.filter(split=v2).count() == 2  # the other sample was copied
    assert sorted(Sample.objects.filter(split=v2).values_list("position", flat=True)) == [0, 1]
    assert PublishedSample.objects.filter(split=v2).count() == 2
    scored.refresh_from_db()
    assert scored.split == v1  # the board keeps the version each score used


def test_adding_to_a_split_that_has_scores_makes_a_new_version_too(item_factory, item, annotator, reviewers,
                                                                    curator, scene_png):
    _accepted(item, annotator, reviewers)
    v1, _ = rs.items_publish(user=curator, item_ids=[item.pk], split_name="annotated")
    [other] = item_factory(scene_png[0], name="other.png", project=item.project, assignee=annotator)
    _accepted(other, annotator, reviewers)
    same, _ = rs.items_publish(user=curator, item_ids=[other.pk], split_name="annotated")
    assert same == v1 and v1.samples.count() == 2  # no scores yet: added in place
    Submission.objects.create(model_entry=ModelEntry.objects.create(name="m", slug="m"), split=v1)
    [third] = item_factory(scene_png[0], name="third.png", project=item.project, assignee=annotator)
    _accepted(third, annotator, reviewers)
    v2, _ = rs.items_publish(user=curator, item_ids=[third.pk], split_name="annotated")
    assert v2.version == 2 and v1.samples.count() == 2 and v2.samples.count() == 3


def test_second_opinion_is_blind_and_low_agreement_flags_the_item(
    item_factory, item, annotator, reviewers, curator, django_user_model, scene_png
):
    ben = _user(django_user_model, "ben", "annotator")
    _submit(annotator, item, count=2, instances={"masklet_target": [_box(100, 200, 100, 200), _box(90, 252, 384, 544)]})
    [opinion] = rs.second_opinions_request(user=curator, project=item.project, share=1.0, seed=1,
                                           annotators=[annotator, ben])
    assert opinion.annotator == ben and opinion.masklet == "masklet_target"  # never the item's own annotator
    with pytest.raises(AnnotationError, match="No such second-opinion task"):
        rs.second_opinion_save(user=annotator, opinion_id=opinion.pk, version=1, count=1, instances={})
    saved = rs.second_opinion_save(user=ben, opinion_id=opinion.pk, version=1, count=1,
                                   instances={"masklet_target": [_box(100, 200, 100, 200)]})
    with pytest.raises(AnnotationError, match="changed since you loaded it"):
        rs.second_opinion_save(user=ben, opinion_id=opinion.pk, version=1, count=3, instances={})
    done = rs.second_opinion_submit(user=ben, opinion_id=opinion.pk, version=saved.version)
    assert done.low_agreement and done.count_equal is False and done.f1 == pytest.approx(2 / 3, abs=1e-4)
    assert done.mean_iou == 1.0 and "counts differ (2 vs 1)" in done.why
    item.refresh_from_db()
    assert [o.pk for o in rs.low_agreement_flags(item)] == [opinion.pk]
    assert AuditEvent.objects.filter(item=item, action="second_opinion_low").exists()


def test_review_policy_is_per_project_and_curator_only(item, curator, reviewers):
    with pytest.raises(AnnotationError, match="Only curators"):
        rs.review_config_set(user=reviewers[0], project=item.project, rounds_required=3)
    with pytest.raises(AnnotationError, match="rounds_required must be between 2 and 10, got 1"):
        rs.review_config_set(user=curator, project=item.project, rounds_required=1)
    with pytest.raises(AnnotationError, match="Each round must be reviewed by a different reviewer"):
        rs.review_config_set(user=curator, project=item.project, rounds_required=2, distinct_reviewers=False)
    assert rs.policy_for(item.project).rounds_required == 2  # the default
    rs.review_config_set(user=curator, project=item.project, rounds_required=3)
    assert ReviewConfig.objects.get(project=item.project).rounds_required == 3
    assert rs.policy_for(item.project).rounds_required == 3
    assert not SecondOpinion.objects.exists()
