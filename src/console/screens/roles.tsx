/**
 * Roles: the roles the acting DID may see (Get Roles) and their assignments (Get Role Assignments) as a matrix of
 * DIDs × roles. Ticking a cell grants the role (Create Role Assignments, with a DID-auth token of the acting DID);
 * clearing it revokes (Delete Role Assignments, with that token as the Access Token). The service applies its rules
 * — only the role's creator or the holder of its DID's key may — and a refusal is shown with its errorType and
 * message, the cell left as the service has it.
 */
import { useEffect, useState } from 'preact/hooks'
import type { AssignmentView, RoleView, WalletView } from '../../client/index.js'
import { itemError } from '../ui/errors.js'
import type { ScreenProps } from '../screen.js'
import { actingAs, withAccessToken } from './acting.js'
import { WalletSelect } from './wallet-select.js'
import { tenantWallets } from './wallets.js'
import './operations.css'

interface Matrix {
  roles: RoleView[]
  /** Assignments by role DID, then by assigned DID. */
  assigned: Map<string, Map<string, AssignmentView>>
}

const short = (did: string): string => (did.length > 30 ? `${did.slice(0, 18)}…${did.slice(-8)}` : did)

const roleName = (role: RoleView): string => role.description || short(role.did)

/** Every page of `fetchPage`. */
async function allPages<T>(fetchPage: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const items: T[] = []
  let cursor: string | undefined
  do {
    const page = await fetchPage(cursor)
    items.push(...page.items)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return items
}

async function loadMatrix(props: ScreenProps, acting: string): Promise<Matrix> {
  const ops = await actingAs(props, acting)
  const roles = await allPages(async (cursor) => {
    const page = await ops.getRoles({ limit: 200, ...(cursor !== undefined && { cursor }) })
    return { items: page.roles, nextCursor: page.nextCursor }
  })
  const assigned = new Map<string, Map<string, AssignmentView>>()
  for (const role of roles) {
    const assignments = await allPages(async (cursor) => {
      const page = await ops.getRoleAssignments({ role: role.did, limit: 500, ...(cursor !== undefined && { cursor }) })
      return { items: page.assignments, nextCursor: page.nextCursor }
    })
    assigned.set(role.did, new Map(assignments.map((a) => [a.did, a])))
  }
  return { roles, assigned }
}

export function RolesScreen(props: ScreenProps) {
  const [wallets, setWallets] = useState<WalletView[]>([])
  const [acting, setActing] = useState('')
  const [matrix, setMatrix] = useState<Matrix>({ roles: [], assigned: new Map() })
  const [busy, setBusy] = useState(false)
  const [said, setSaid] = useState('')

  useEffect(() => {
    tenantWallets(props)
      .then((list) => {
        setWallets(list)
        setActing((list.find((w) => w.role !== true) ?? list[0])?.did ?? '')
      })
      .catch(props.report)
  }, [])

  const reload = async (did = acting) => {
    if (did === '') return
    setBusy(true)
    try {
      setMatrix(await loadMatrix(props, did))
    } catch (err) {
      props.report(err)
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => void reload(acting), [acting])

  const toggle = async (role: RoleView, did: string, grant: boolean) => {
    setBusy(true)
    setSaid('')
    const assignments = [{ role: role.did, did }]
    try {
      const result = grant
        ? await (await actingAs(props, acting)).createRoleAssignments({ assignments })
        : await (await withAccessToken(props, acting)).deleteRoleAssignments({ assignments })
      const refused = itemError(result)
      if (refused) throw refused
      setSaid(`${grant ? 'Granted' : 'Revoked'} ${roleName(role)} ${grant ? 'to' : 'from'} ${did}`)
    } catch (err) {
      props.report(err)
    }
    await reload()
  }

  const roleDids = new Set(matrix.roles.map((r) => r.did))
  const rows = [
    ...new Set([
      ...wallets.filter((w) => w.role !== true && !roleDids.has(w.did)).map((w) => w.did),
      ...[...matrix.assigned.values()].flatMap((byDid) => [...byDid.keys()]),
    ]),
  ]
  const alias = new Map(wallets.map((w) => [w.did, w.alias]))

  return (
    <div class="screen roles">
      <p>
        Roles and the DIDs they are assigned to. Ticking a box grants the role, clearing it revokes it, acting as the DID chosen here (the
        service decides: only a role's creator or the holder of its DID's key may).
      </p>
      <WalletSelect id="roles-acting" label="Act as" wallets={wallets} value={acting} onChange={setActing} />
      <p>
        <button type="button" onClick={() => void reload()} disabled={busy || acting === ''}>
          Reload
        </button>
      </p>
      {matrix.roles.length === 0 ? (
        <p>{busy ? 'Loading…' : 'No role this DID may see.'}</p>
      ) : (
        <div class="table-scroll">
          <table class="matrix">
            <caption>Assignments: DIDs (rows) × roles (columns)</caption>
            <thead>
              <tr>
                <th scope="col">DID</th>
                {matrix.roles.map((role) => (
                  <th scope="col" key={role.did} title={role.did}>
                    {roleName(role)}
                    <br />
                    <span class="muted">{role.permissions.join(', ') || 'no permission'}</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((did) => (
                <tr key={did} data-did={did}>
                  <th scope="row" class="mono" title={did}>
                    {alias.get(did) ? `${alias.get(did)} ` : ''}
                    <span class="muted">{short(did)}</span>
                  </th>
                  {matrix.roles.map((role) => {
                    const checked = matrix.assigned.get(role.did)?.has(did) === true
                    return (
                      <td key={role.did} class={checked ? 'on' : ''}>
                        <input
                          type="checkbox"
                          checked={checked}
                          disabled={busy}
                          data-role={role.did}
                          aria-label={`${roleName(role)} assigned to ${alias.get(did) || did}`}
                          onChange={(event) => void toggle(role, did, event.currentTarget.checked)}
                        />
                      </td>
                    )
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p role="status" aria-live="polite">
        {said}
      </p>
    </div>
  )
}
