"""The catalog: an incremental cache of one backend's skills (nothing imported here)."""
