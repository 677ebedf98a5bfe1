"""PLAN-Bench scoring, pure: item/prediction readers, option extraction, the rule judge, the LLM judge protocol
and client, the cascade engine and aggregation. Imports no Django; the site maps its models onto these types.
"""
