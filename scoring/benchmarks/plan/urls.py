from django.urls import path

from scoring.benchmarks.plan import views as plan_views

urlpatterns = [
    path("judgements/", plan_views.plan_queue, name="plan-queue"),
    path("judgements/<int:pk>/decide/", plan_views.plan_judgement_decide, name="plan-judgement-decide"),
    path("audit/", plan_views.plan_audit_index, name="plan-audit-index"),
    path("audit/<int:split_id>/", plan_views.plan_audit, name="plan-audit"),
    path("audit/checks/<int:pk>/", plan_views.plan_audit_record, name="plan-audit-record"),
    path("submissions/<int:pk>/verdicts/", plan_views.plan_submission_verdicts, name="plan-verdicts"),
]
