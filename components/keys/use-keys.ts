'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type CreatedKeyJson,
  createKey,
  fetchKeys,
  KEYS_KEY,
  type KeyJson,
  type NewKeyBody,
  revokeKey,
} from '@/lib/ui/keys-api';
import { withKey } from '@/lib/ui/keys-draft';

/** While the Keys page is visible the list (its "last used" times) is read this often. */
const KEYS_POLL_MS = 10_000;

type KeysJson = { keys: KeyJson[] };

/**
 * The keys, first rendered by the server, then read again every 10 s and on focus. `enabled`
 * false stops every read: once the first key has ended local mode, this browser has no key yet
 * and each read would only get a 401.
 */
export function useKeys({ initial, renderedAt, enabled }: { initial: KeysJson; renderedAt: number; enabled: boolean }) {
  return useQuery<KeysJson>({
    queryKey: KEYS_KEY,
    queryFn: fetchKeys,
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: enabled ? KEYS_POLL_MS : false,
    refetchOnWindowFocus: enabled,
    enabled,
  });
}

/** The new key as the list shows it, before the list is read again. */
function listed(created: CreatedKeyJson, body: NewKeyBody): KeyJson {
  const permissions = body.permissions
    ? { allow: body.permissions.allow ?? [], ask: body.permissions.ask ?? [], deny: body.permissions.deny ?? [] }
    : undefined;
  return {
    ...created.key,
    last_used_at: null,
    revoked_at: null,
    ...(permissions ? { permissions } : {}),
    ...(body.tools ? { tools: body.tools } : {}),
  };
}

/**
 * Create and revoke. Each answer goes into the list at once, then the list is read again — except
 * after the key that ended local mode (`endsLocalMode`), when any read would be refused.
 */
export function useKeyMutations({ endsLocalMode }: { endsLocalMode: boolean }) {
  const queryClient = useQueryClient();
  const put = (key: KeyJson) =>
    queryClient.setQueryData<KeysJson>(KEYS_KEY, (list) => ({ keys: withKey(list?.keys ?? [], key) }));
  const settle = () => queryClient.invalidateQueries({ queryKey: KEYS_KEY });

  const create = useMutation({
    mutationFn: (body: NewKeyBody) => createKey(body),
    onSuccess: (created, body) => put(listed(created, body)),
    onSettled: (created) => {
      if (!(created && endsLocalMode)) return settle();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => revokeKey(id),
    onSuccess: (answer) => put(answer.key),
    onSettled: settle,
  });
  return { create, revoke };
}
