"""Rendering helpers shared by the workbench pages (UI only; every call goes through core.service)."""
