package main

import (
	"testing"

	"github.com/claimaudit/claimaudit/audit"
	"github.com/stretchr/testify/assert"
)

func TestShardOfFlagsAndSchedulers(t *testing.T) {
	tests := []struct {
		name    string
		spec    string
		n       int
		env     map[string]string
		want    audit.Shard
		wantErr string
	}{
		{name: "whole run"},
		{name: "--shard", spec: "2/5", want: audit.Shard{Index: 2, Count: 5}},
		{name: "--shard out of range", spec: "5/5", wantErr: "want 0 ≤ i < N"},
		{name: "--shard not i/N", spec: "2", wantErr: "is not i/N"},
		{name: "both flags", spec: "0/2", n: 2, wantErr: "give one"},
		{name: "kubernetes indexed job", n: 4, env: map[string]string{"JOB_COMPLETION_INDEX": "3"}, want: audit.Shard{Index: 3, Count: 4}},
		{name: "kubernetes wins over slurm", n: 4, env: map[string]string{"JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_ID": "2"}, want: audit.Shard{Index: 1, Count: 4}},
		{name: "slurm array from 0", n: 4, env: map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0"}, want: audit.Shard{Index: 2, Count: 4}},
		// sbatch --array=3 resubmits task 3 alone: SLURM_ARRAY_TASK_MIN is 3 then.
		{name: "slurm task resubmitted alone", n: 4, env: map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "3"}, want: audit.Shard{Index: 3, Count: 4}},
		{name: "slurm array from 1", n: 4, env: map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1"}, wantErr: "task ids are the shard indices: --array=0-3"},
		{name: "slurm task past the shards", n: 4, env: map[string]string{"SLURM_ARRAY_TASK_ID": "4"}, wantErr: "SLURM_ARRAY_TASK_ID=4"},
		{name: "no scheduler", n: 4, wantErr: "neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID"},
		{name: "index not a number", n: 4, env: map[string]string{"JOB_COMPLETION_INDEX": "x"}, wantErr: `JOB_COMPLETION_INDEX="x" is not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := shardOf(tt.spec, tt.n, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
