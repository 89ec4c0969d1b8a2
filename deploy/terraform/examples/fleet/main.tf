# A GPU worker queue, a team's worker group with capacity reserved on it, and the
# registration token the team's workers start with.
#
#   export LANNER_URL=https://lanner.example.com LANNER_TOKEN=<instance admin API token>
#   tofu apply -var team=ml           # or terraform apply
#   tofu output -raw registration_token   # LANNER_WORKER_REGISTRATION_TOKEN of the team's workers

terraform {
  required_providers {
    lanner = {
      source = "lanner/lanner"
    }
  }
}

# URL and token from LANNER_URL and LANNER_TOKEN (or set url and token here).
provider "lanner" {}

variable "team" {
  description = "Team name: the group is team-<team>."
  type        = string
  default     = "ml"
}

variable "gpu_reserved_percent" {
  description = "Share of the team's worker slots kept for GPU tasks (1..100)."
  type        = number
  default     = 40
}

resource "lanner_worker_queue" "gpu" {
  id          = "gpu"
  tags        = ["gpu", "cuda"]
  description = "Workers with a GPU"
}

resource "lanner_worker_group" "team" {
  id          = "team-${var.team}"
  name        = "Team ${var.team}"
  description = "Workers run by team ${var.team}"
  subscriptions = [
    # ELASTIC: the reserved slots serve other queues while no GPU task waits.
    { worker_queue_id = lanner_worker_queue.gpu.id, reserved_percent = var.gpu_reserved_percent, mode = "ELASTIC" },
    { worker_queue_id = "default" },
  ]
}

resource "lanner_registration_token" "team" {
  worker_group_id = lanner_worker_group.team.id
  name            = "team-${var.team}-workers"
}

output "worker_group_id" {
  value = lanner_worker_group.team.id
}

output "registration_token" {
  description = "Shown once by the API; kept in the state (protect the state file)."
  value       = lanner_registration_token.team.token
  sensitive   = true
}
