! lcm.f90 - Fortran bindings (iso_c_binding) for part of liblcm's lcm.h:
! models, parameters, solving, values.  Handles are type(c_ptr); strings go
! in NUL-terminated (name//c_null_char); periods, regimes and states count
! from 0, as in C.  Add interfaces for more of lcm.h the same way.
module lcm
  use iso_c_binding
  implicit none
  type, bind(c) :: lcm_err
    integer(c_int) :: code = 0
    character(kind=c_char) :: msg(4096)
  end type
  interface
    integer(c_int) function lcm_model_open_dir(dir, model, err) bind(c)
      import :: c_char, c_int, c_ptr, lcm_err
      character(kind=c_char), intent(in) :: dir(*)
      type(c_ptr), intent(out) :: model
      type(lcm_err), intent(inout) :: err
    end function
    integer(c_int) function lcm_model_regime_by_name(model, name) bind(c)
      import :: c_char, c_int, c_ptr
      type(c_ptr), value :: model
      character(kind=c_char), intent(in) :: name(*)
    end function
    integer(c_int) function lcm_solver_new(model, opts, solver, err) bind(c)
      import :: c_int, c_ptr, lcm_err
      type(c_ptr), value :: model, opts ! opts: c_null_ptr for the defaults
      type(c_ptr), intent(out) :: solver
      type(lcm_err), intent(inout) :: err
    end function
    type(c_ptr) function lcm_pv_table() bind(c)
      import :: c_ptr
    end function
    type(c_ptr) function lcm_pv_num(x) bind(c)
      import :: c_ptr, c_double
      real(c_double), value :: x
    end function
    subroutine lcm_pv_put(table, key, item) bind(c)
      import :: c_char, c_ptr
      type(c_ptr), value :: table
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: item
    end subroutine
    integer(c_int) function lcm_solve(solver, params, solution, err) bind(c)
      import :: c_int, c_ptr, lcm_err
      type(c_ptr), value :: solver, params
      type(c_ptr), intent(out) :: solution
      type(lcm_err), intent(inout) :: err
    end function
    real(c_double) function lcm_solution_value(solution, period, regime, state) bind(c)
      import :: c_double, c_int, c_long_long, c_ptr
      type(c_ptr), value :: solution
      integer(c_int), value :: period, regime
      integer(c_long_long), value :: state ! lcm_index
    end function
    ! the destructors, one line each
    subroutine lcm_model_free(p) bind(c); import :: c_ptr; type(c_ptr), value :: p; end subroutine
    subroutine lcm_solver_free(p) bind(c); import :: c_ptr; type(c_ptr), value :: p; end subroutine
    subroutine lcm_pv_free(p) bind(c); import :: c_ptr; type(c_ptr), value :: p; end subroutine
    subroutine lcm_solution_free(p) bind(c); import :: c_ptr; type(c_ptr), value :: p; end subroutine
  end interface
contains
  ! The message of a failed call, as a Fortran string.
  function lcm_message(err) result(s)
    type(lcm_err), intent(in) :: err
    character(len=:), allocatable :: s
    integer :: n
    n = 0
    do while (n < size(err%msg))
      if (err%msg(n + 1) == c_null_char) exit
      n = n + 1
    end do
    allocate(character(len=n) :: s)
    s = transfer(err%msg(1:n), s)
  end function
end module
