export interface Team {
  id: string;
  organizationId: string;
  name: string;
  description: string | null;
  function: string | null;
  tier: string | null;
  escalationTeamId: string | null;
  email: string | null;
  slackChannel: string | null;
  teamsChannel: string | null;
  timezone: string | null;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
}

export interface TeamFilter {
  name?: string;
  function?: string[];
  tier?: string[];
  escalationTeamId?: string;
}
